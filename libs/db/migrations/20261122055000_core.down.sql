DROP TABLE IF EXISTS run_summaries, item_results, stage_failures, stage_results, run_stages, variants, runs, sweeps,
  dataset_items, dataset_databases, dataset_versions, datasets;
