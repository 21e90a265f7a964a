ALTER TABLE llm_response_cache DROP COLUMN paid_for_run, DROP COLUMN paid_for_stage;
