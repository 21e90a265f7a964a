-- A run's statuses form a small state machine: 'running' ends in exactly one of 'done' (every item has a result,
-- errored ones included), 'failed' (the run cannot proceed; failure_reason says why) or 'cancelled'.
ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs
  ADD COLUMN failure_reason text,
  ADD CONSTRAINT runs_status_check CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
  ADD CONSTRAINT runs_failure_reason_check CHECK ((status = 'failed') = (failure_reason IS NOT NULL));
