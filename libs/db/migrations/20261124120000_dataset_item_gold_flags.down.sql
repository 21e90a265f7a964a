ALTER TABLE dataset_items DROP COLUMN gold_flag, DROP COLUMN gold_flag_reason;
