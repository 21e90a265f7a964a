ALTER TABLE run_summaries DROP COLUMN parse_failures;
ALTER TABLE item_results DROP COLUMN parse_failed;
