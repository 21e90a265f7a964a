ALTER TABLE run_stages DROP COLUMN last_input_key;
