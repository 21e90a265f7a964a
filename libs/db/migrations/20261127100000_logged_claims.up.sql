-- Claims on LLM calls in flight are logged again, and each claim statement commits asynchronously
-- (synchronous_commit off for its own transaction: LlmCacheRepository). Unlogged, a Postgres crash emptied the table,
-- and a retried job in another worker could claim and pay for a call whose answer the first worker held in memory
-- before that worker's renewal put its claim back (bench/chaos postgres-restart: 1 to 7 calls paid twice with 60 in
-- flight). Now only claims committed in a crash's last fraction of a second are lost (at most 3 x wal_writer_delay,
-- 600 ms by default).
ALTER TABLE llm_cache_claims SET LOGGED;
