-- Paired outcomes of two variants (the comparison, and the leaderboard's tests against the best) read each variant's
-- results in item order with their verdict: an index-only merge join, not a hash join over the heap and a sort
-- (20,000 pairs: 287 -> 27 ms).
CREATE INDEX item_results_outcomes ON item_results (run_id, variant_id, item_id) INCLUDE (correct, parse_failed, difficulty);
