DROP TABLE run_item_tallies;
DROP TABLE run_stage_tallies;
DROP TABLE run_tally_marks;
DROP INDEX item_results_run_item;
DROP INDEX dataset_items_position;
DROP INDEX item_results_run_created_at;
DROP INDEX stage_results_created_at;
