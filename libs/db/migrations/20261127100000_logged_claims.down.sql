ALTER TABLE llm_cache_claims SET UNLOGGED;
