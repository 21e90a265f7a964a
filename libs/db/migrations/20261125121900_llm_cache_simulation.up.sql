-- The simulator's report of a cached answer (its prompt features and probability), so that an answer served from the
-- cache says why it is right or wrong as the call that paid for it did. NULL for real models and older rows.
ALTER TABLE llm_response_cache ADD COLUMN simulation jsonb;
