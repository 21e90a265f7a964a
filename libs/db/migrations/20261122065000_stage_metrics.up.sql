-- Per-stage metrics (schema-linking precision/recall, retrieval recall, revision counts...) stored beside EX:
-- copied from the `metrics` object of an item's stage outputs, averaged per variant in the summary.
ALTER TABLE item_results ADD COLUMN metrics jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE run_summaries ADD COLUMN metrics jsonb NOT NULL DEFAULT '{}'::jsonb;
