-- The planner's pre-run estimate, kept beside the run so the summary can show it next to what was spent.
ALTER TABLE runs
  ADD COLUMN cache_namespace text NOT NULL DEFAULT '',
  ADD COLUMN estimated_llm_calls integer NOT NULL DEFAULT 0,
  ADD COLUMN estimated_input_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN estimated_output_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN estimated_cost_usd double precision NOT NULL DEFAULT 0;
