ALTER TABLE run_summaries DROP COLUMN scorer;
ALTER TABLE item_results DROP COLUMN scorer;
