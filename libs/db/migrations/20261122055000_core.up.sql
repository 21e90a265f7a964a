-- Core schema: datasets, sweeps, runs, variants, the per-run stage plan, memoized stage results, item results.

CREATE TABLE datasets (
  id          serial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE dataset_versions (
  id          serial PRIMARY KEY,
  dataset_id  integer NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
  content_hash text NOT NULL,
  format      text NOT NULL CHECK (format IN ('spider', 'bird', 'minibench')),
  source_path text NOT NULL,
  item_count  integer NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (dataset_id, content_hash)
);

CREATE TABLE dataset_databases (
  version_id  integer NOT NULL REFERENCES dataset_versions(id) ON DELETE CASCADE,
  db_id       text NOT NULL,
  replica_path text NOT NULL,
  checksum    text NOT NULL,
  schema      jsonb NOT NULL,
  PRIMARY KEY (version_id, db_id)
);

CREATE TABLE dataset_items (
  version_id  integer NOT NULL REFERENCES dataset_versions(id) ON DELETE CASCADE,
  item_id     text NOT NULL,
  position    integer NOT NULL,
  split       text NOT NULL CHECK (split IN ('train', 'dev')),
  db_id       text NOT NULL,
  question    text NOT NULL,
  evidence    text,
  gold_sql    text NOT NULL,
  difficulty  text,
  hardness    text,
  PRIMARY KEY (version_id, item_id)
);
CREATE INDEX dataset_items_split ON dataset_items (version_id, split, position);

CREATE TABLE sweeps (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  source      text NOT NULL,
  config      jsonb NOT NULL,
  config_hash text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE runs (
  id          uuid PRIMARY KEY,
  sweep_id    uuid NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  dataset_version_id integer NOT NULL REFERENCES dataset_versions(id),
  status      text NOT NULL CHECK (status IN ('running', 'done', 'cancelled')),
  priority    text NOT NULL DEFAULT 'interactive',
  item_count  integer NOT NULL,
  stage_jobs  integer NOT NULL,
  reused_stages integer NOT NULL,
  simulated   boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);

CREATE TABLE variants (
  id          uuid PRIMARY KEY,
  run_id      uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  variant_key text NOT NULL,
  label       text NOT NULL,
  pipeline    text NOT NULL,
  model       text NOT NULL,
  sample_index integer NOT NULL,
  params      jsonb NOT NULL,
  position    integer NOT NULL,
  UNIQUE (run_id, variant_key)
);

-- The plan: for every (run, variant, item) the stage graph, each node with its content-hashed key.
CREATE TABLE run_stages (
  run_id      uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  variant_id  uuid NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
  item_id     text NOT NULL,
  stage       text NOT NULL,
  stage_key   text NOT NULL,
  role        text NOT NULL,
  params      jsonb NOT NULL,
  inputs      jsonb NOT NULL,
  input_keys  text[] NOT NULL,
  is_final    boolean NOT NULL,
  PRIMARY KEY (run_id, variant_id, item_id, stage)
);
CREATE INDEX run_stages_key ON run_stages (stage_key);
CREATE INDEX run_stages_input_keys ON run_stages USING gin (input_keys);

-- Memoized outputs, written once per key by whichever worker finishes first.
CREATE TABLE stage_results (
  stage_key   text PRIMARY KEY,
  stage       text NOT NULL,
  output      jsonb NOT NULL,
  simulated   boolean NOT NULL DEFAULT false,
  input_tokens integer NOT NULL DEFAULT 0,
  cached_input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  cost_usd    double precision NOT NULL DEFAULT 0,
  latency_ms  double precision NOT NULL DEFAULT 0,
  trace       jsonb,
  run_id      uuid,
  variant_id  uuid,
  machine     text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- A stage that failed for good in one run; never reused by another run (failures are not memoized).
CREATE TABLE stage_failures (
  run_id      uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  stage_key   text NOT NULL,
  stage       text NOT NULL,
  error       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, stage_key)
);

CREATE TABLE item_results (
  run_id      uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  variant_id  uuid NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
  item_id     text NOT NULL,
  final_stage_key text NOT NULL,
  correct     boolean NOT NULL,
  errored     boolean NOT NULL,
  reason      text NOT NULL,
  predicted_sql text,
  difficulty  text,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  cost_usd    double precision NOT NULL DEFAULT 0,
  latency_ms  double precision NOT NULL DEFAULT 0,
  simulated   boolean NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, variant_id, item_id)
);

CREATE TABLE run_summaries (
  run_id      uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  variant_id  uuid NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
  items       integer NOT NULL,
  correct     integer NOT NULL,
  errors      integer NOT NULL,
  ex          double precision NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cost_usd    double precision NOT NULL,
  wall_ms     double precision NOT NULL,
  simulated   boolean NOT NULL,
  PRIMARY KEY (run_id, variant_id)
);
