-- The run and stage whose call paid for a cached response (NULL when unknown: batch answers, rows from before this).
-- A stage that finds its own earlier call's answer in the cache (its worker died after the answer arrived, or another
-- execution of the same stage of the same run paid) charges the run for it, since the run did pay; any other cache
-- hit is free for the run that takes it.
ALTER TABLE llm_response_cache ADD COLUMN paid_for_run uuid, ADD COLUMN paid_for_stage text;
