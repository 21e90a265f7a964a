-- The older schema has no 'failed': such runs become 'cancelled' (ended, not done), and their reason is dropped.
ALTER TABLE runs DROP CONSTRAINT runs_failure_reason_check, DROP CONSTRAINT runs_status_check;
UPDATE runs SET status = 'cancelled' WHERE status = 'failed';
ALTER TABLE runs
  DROP COLUMN failure_reason,
  ADD CONSTRAINT runs_status_check CHECK (status IN ('running', 'done', 'cancelled'));
