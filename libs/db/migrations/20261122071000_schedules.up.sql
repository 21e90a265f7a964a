-- Nightly schedules: each fire of a schedule (one run), the comparison made when that run finished, and the
-- regression alerts to deliver to the webhook (and show on the dashboard).

-- One row per (schedule, fire time): claimed before planning so a fire delivered twice makes one run.
CREATE TABLE schedule_fires (
  schedule    text NOT NULL,
  fired_at    timestamptz NOT NULL,
  cache_namespace text NOT NULL,
  run_id      uuid UNIQUE REFERENCES runs(id) ON DELETE CASCADE,
  error       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (schedule, fired_at)
);

-- The comparison of a finished scheduled run with the previous finished run of its schedule (written once).
CREATE TABLE regression_checks (
  run_id      uuid PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  schedule    text NOT NULL,
  previous_run_id uuid REFERENCES runs(id) ON DELETE SET NULL,
  regressed   boolean NOT NULL,
  variants    jsonb NOT NULL,
  changed_stages jsonb NOT NULL,
  checked_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX regression_checks_schedule ON regression_checks (schedule, checked_at);

CREATE TABLE regression_alerts (
  id          bigserial PRIMARY KEY,
  run_id      uuid NOT NULL UNIQUE REFERENCES runs(id) ON DELETE CASCADE,
  schedule    text NOT NULL,
  payload     jsonb NOT NULL,
  webhook_url text,
  attempts    integer NOT NULL DEFAULT 0,
  last_error  text,
  lease_until timestamptz,
  delivered_at timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
