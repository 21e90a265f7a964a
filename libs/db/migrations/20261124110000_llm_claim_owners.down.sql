ALTER TABLE llm_cache_claims DROP COLUMN owner;
