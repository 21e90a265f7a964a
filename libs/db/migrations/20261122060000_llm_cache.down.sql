DROP TABLE IF EXISTS llm_cache_claims;
DROP TABLE IF EXISTS llm_response_cache;
