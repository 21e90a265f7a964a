ALTER TABLE item_results DROP COLUMN metrics;
ALTER TABLE run_summaries DROP COLUMN metrics;
