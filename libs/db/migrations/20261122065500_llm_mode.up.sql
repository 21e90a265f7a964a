-- Batch mode is chosen per sweep: its LLM stages go to the providers' batch APIs instead of one call each.
ALTER TABLE runs ADD COLUMN llm_mode text NOT NULL DEFAULT 'online' CHECK (llm_mode IN ('online', 'batch'));
