DROP INDEX item_results_outcomes;
