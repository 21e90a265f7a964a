-- Named after 20261125100000_parse_failures (it indexes parse_failed), which the migrations before it sort ahead of.
-- Paired outcomes of two variants (the comparison, and the leaderboard's tests against the best) read each variant's
-- results in item order with their verdict: an index-only merge join, not a hash join over the heap and a sort
-- (20,000 pairs: 287 -> 27 ms).
CREATE INDEX item_results_outcomes ON item_results (run_id, variant_id, item_id) INCLUDE (correct, parse_failed, difficulty);
