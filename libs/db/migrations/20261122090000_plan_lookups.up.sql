-- Advancing looks up the stages that read a key after every stored result. GIN's fast-update pending list is
-- scanned linearly by every lookup until a vacuum merges it, and a fresh plan puts thousands of keys there.
ALTER INDEX run_stages_input_keys SET (fastupdate = off);
SELECT gin_clean_pending_list('run_stages_input_keys');
