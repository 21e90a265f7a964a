-- Table-retrieval recall / reduction per threshold (RB-SQL Fig. 6a) of one encoder on one dataset version, written by
-- `sqlsweep retriever eval` and by the planner when a sweep gives a threshold as an operating point. `options_key`
-- names what else changes the curve (split, evidence in the query, μ', the large-table token limit).
CREATE TABLE retrieval_curves (
  dataset_hash text NOT NULL,
  encoder_fingerprint text NOT NULL,
  options_key text NOT NULL,
  encoder_name text NOT NULL,
  items integer NOT NULL,
  points jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (dataset_hash, encoder_fingerprint, options_key)
);
-- The thresholds a variant's operating points resolved to, with the curve points they were read from.
ALTER TABLE variants ADD COLUMN resolved_knobs jsonb NOT NULL DEFAULT '[]';
