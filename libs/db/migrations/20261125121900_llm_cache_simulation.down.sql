ALTER TABLE llm_response_cache DROP COLUMN simulation;
