-- LLM response cache: successful responses only (errors are never stored), keyed by a hash of
-- (namespace, provider, model, normalized request, template version, sample index). No API keys, ever.
CREATE TABLE llm_response_cache (
  cache_key            text PRIMARY KEY,
  namespace            text NOT NULL,
  provider             text NOT NULL,
  model                text NOT NULL,
  template_version     text NOT NULL,
  output               text NOT NULL,
  input_tokens         integer NOT NULL CHECK (input_tokens >= 0),
  cached_input_tokens  integer NOT NULL CHECK (cached_input_tokens >= 0),
  output_tokens        integer NOT NULL CHECK (output_tokens >= 0),
  cost_usd             numeric(18, 9) NOT NULL CHECK (cost_usd >= 0),
  latency_ms           integer NOT NULL CHECK (latency_ms >= 0),
  simulated            boolean NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX llm_response_cache_namespace_idx ON llm_response_cache (namespace);

-- A call in flight, claimed by one process so that identical calls elsewhere wait for its cached answer
-- instead of paying again. A claim lapses at expires_at (a crashed worker holds nothing for long).
CREATE TABLE llm_cache_claims (
  cache_key   text PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);
