DROP TABLE IF EXISTS llm_response_cache;
