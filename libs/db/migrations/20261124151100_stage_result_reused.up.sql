-- A stage result's cost is what the call that produced its answer cost, whoever wrote the row. `reused` says this
-- execution paid nothing for it (the answer came from the response cache: an earlier or a concurrent identical call):
-- a run's spend counts only results it paid for, and when a paid and a reused write of one key race, the paid one wins.
ALTER TABLE stage_results ADD COLUMN reused boolean NOT NULL DEFAULT false;
