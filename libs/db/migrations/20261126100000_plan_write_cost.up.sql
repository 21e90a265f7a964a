-- Writing a plan (issue 17): most of Postgres's time per run_stages row went to two indexes whose entries land at
-- random places, stage keys being hashes.
-- The stage-key index is only ever probed for equality: a hash index holds a 4-byte hash per row instead of the
-- 64-character key, and an insert touches one bucket page (1,000,000-row plan: about a sixth of Postgres's CPU).
DROP INDEX run_stages_key;
CREATE INDEX run_stages_key ON run_stages USING hash (stage_key);
-- The input-keys index takes a plan's entries through its fast-update pending list, merged in sorted batches, and
-- writePlan merges what is left before the plan commits (gin_clean_pending_list), so that no dependents lookup ever
-- scans a pending list a plan filled (why 20261122090000_plan_lookups turned fast update off).
ALTER INDEX run_stages_input_keys SET (fastupdate = on);
