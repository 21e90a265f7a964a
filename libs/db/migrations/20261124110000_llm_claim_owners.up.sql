-- A claim names the process that holds it. The owner renews its claims every few seconds while its call is in
-- flight, so a claim lapses seconds after its owner dies (not after the call's timeout), a renewal after a crash that
-- emptied this unlogged table puts the owner's rows back, and a release deletes only the releaser's own claim.
-- Rows of processes started before this column existed get '' and lapse at their old expiry.
ALTER TABLE llm_cache_claims ADD COLUMN owner text NOT NULL DEFAULT '';
