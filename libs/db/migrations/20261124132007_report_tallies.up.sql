-- Reports at scale (issue 17): a run's progress and scores are kept as tallies that are brought up to date from the
-- rows created since the last look, instead of being counted over the whole plan (1,000,000 run_stages) and every
-- item result (100,000) on each request. Nothing is added to the write path but two index entries: stage results and
-- item results are found by creation time. ReportTallies (libs/db/src/report-tallies.ts) explains the watermark.

-- Results stored since a time: what a refresh of the tallies reads, and the ETA's last minute.
CREATE INDEX stage_results_created_at ON stage_results (created_at);
-- A run's item results since a time (refresh), and its first and last result.
CREATE INDEX item_results_run_created_at ON item_results (run_id, created_at);
-- Item pages in dataset order walk the items by position and probe each one's results.
CREATE INDEX dataset_items_position ON dataset_items (version_id, position);
CREATE INDEX item_results_run_item ON item_results (run_id, item_id);

-- Rows created before `watermark` are counted in the run's tallies; `planned` was counted once, from the committed plan.
CREATE TABLE run_tally_marks (
  run_id      uuid PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  watermark   timestamptz NOT NULL,
  refreshed_at timestamptz NOT NULL DEFAULT now()
);
-- Per stage kind: distinct keys planned and with a result, and what the results this run paid for cost.
CREATE TABLE run_stage_tallies (
  run_id      uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  stage       text NOT NULL,
  planned     integer NOT NULL,
  done        integer NOT NULL,
  paid_cost_usd double precision NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, stage)
);
-- Per variant, item results counted along one dimension: dim 'all' (key ''), 'difficulty', 'category', 'scorer' or
-- 'metric' (key: the metric; items: results carrying it; metric_sum: their sum).
CREATE TABLE run_item_tallies (
  run_id      uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  variant_id  uuid NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
  dim         text NOT NULL,
  key         text NOT NULL,
  items       integer NOT NULL,
  correct     integer NOT NULL,
  errors      integer NOT NULL,
  parse_failures integer NOT NULL,
  input_tokens double precision NOT NULL,
  output_tokens double precision NOT NULL,
  cost_usd    double precision NOT NULL,
  latency_ms  double precision NOT NULL,
  simulated   boolean NOT NULL,
  metric_sum  double precision NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, variant_id, dim, key)
);
