ALTER TABLE stage_results DROP COLUMN reused;
