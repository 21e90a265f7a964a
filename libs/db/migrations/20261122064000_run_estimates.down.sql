ALTER TABLE runs
  DROP COLUMN cache_namespace,
  DROP COLUMN estimated_llm_calls,
  DROP COLUMN estimated_input_tokens,
  DROP COLUMN estimated_output_tokens,
  DROP COLUMN estimated_cost_usd;
