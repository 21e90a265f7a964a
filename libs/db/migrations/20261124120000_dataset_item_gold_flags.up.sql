-- `datasets add` runs every gold query under the sandbox's limits. An item whose gold errors, times out, is refused by
-- the statement gate or is cut at the row/byte limit is kept with its flag and left out of sweeps: scoring a model
-- against it would count the dataset's fault as the model's.
ALTER TABLE dataset_items
  ADD COLUMN gold_flag text CHECK (gold_flag IN ('error', 'timeout', 'refused', 'truncated')),
  ADD COLUMN gold_flag_reason text;
