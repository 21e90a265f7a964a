ALTER INDEX run_stages_input_keys SET (fastupdate = off);
SELECT gin_clean_pending_list('run_stages_input_keys');
DROP INDEX run_stages_key;
CREATE INDEX run_stages_key ON run_stages (stage_key);
