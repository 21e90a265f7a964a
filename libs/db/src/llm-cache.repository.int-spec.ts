import { Client, Pool, type PoolClient } from 'pg';
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { LlmCacheRepository, type LlmCacheEntry } from './llm-cache.repository';

/** The response cache's look-up-or-claim and store-and-release, each one round trip, against real Postgres. */
describe('LlmCacheRepository: claims in one round trip', () => {
  let t: TestDatabase;
  let pool: Pool;
  /** Queries sent to the server on `pool`'s connections: one query message each, so one round trip each. */
  let sent = 0;
  let repo: LlmCacheRepository;
  let n = 0;

  beforeAll(async () => {
    t = await createTestDatabase();
    pool = new Pool({ connectionString: t.url, max: 2 });
    pool.on('connect', (c: PoolClient) => {
      const query = c.query.bind(c) as (...args: unknown[]) => unknown;
      (c as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        sent++;
        return query(...args);
      };
    });
    repo = new LlmCacheRepository(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await t?.drop();
  });

  const newKey = () => `key-${++n}`;
  const entry = (key: string, output = `answer to ${key}`): LlmCacheEntry => ({
    key,
    namespace: 'ns',
    provider: 'sim',
    model: 'm',
    templateVersion: 'v1',
    response: { output, usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 3 }, costUsd: 0.01, latencyMs: 5, simulated: true, provider: 'sim', model: 'm' },
  });
  const claimsOf = async (key: string) => (await pool.query<{ owner: string; live: boolean }>('SELECT owner, expires_at > now() AS live FROM llm_cache_claims WHERE cache_key = $1', [key])).rows;
  async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; roundTrips: number }> {
    const before = sent;
    const result = await fn();
    return { result, roundTrips: sent - before };
  }

  it('a miss claims in one round trip; storing the response releases the claim in one more', async () => {
    const key = newKey();
    const miss = await counted(() => repo.lookupOrClaim(key, 'a', 10_000));
    expect(miss).toEqual({ result: { claimed: true }, roundTrips: 1 });
    expect(await claimsOf(key)).toEqual([{ owner: 'a', live: true }]);

    const stored = await counted(() => repo.putAndRelease(entry(key), 'a'));
    expect(stored.roundTrips).toBe(1);
    expect(await claimsOf(key)).toEqual([]);
    expect((await repo.get(key))?.output).toBe(`answer to ${key}`);
  });

  it('a hit answers in one round trip and writes no claim', async () => {
    const key = newKey();
    await repo.put(entry(key));
    const hit = await counted(() => repo.lookupOrClaim(key, 'b', 10_000));
    expect(hit.roundTrips).toBe(1);
    expect(hit.result).toEqual({ claimed: false, hit: await repo.get(key) });
    expect(hit.result.hit?.output).toBe(`answer to ${key}`);
    expect(await claimsOf(key)).toEqual([]);
  });

  it("leaves another owner's live claim alone, takes over a lapsed one, and renews its own", async () => {
    const key = newKey();
    expect(await repo.lookupOrClaim(key, 'a', 10_000)).toEqual({ claimed: true });
    expect(await repo.lookupOrClaim(key, 'b', 10_000)).toEqual({ claimed: false });
    expect(await claimsOf(key)).toEqual([{ owner: 'a', live: true }]);
    expect(await repo.lookupOrClaim(key, 'a', 10_000)).toEqual({ claimed: true });

    await pool.query(`UPDATE llm_cache_claims SET expires_at = now() - interval '1 second' WHERE cache_key = $1`, [key]);
    expect(await repo.lookupOrClaim(key, 'b', 10_000)).toEqual({ claimed: true });
    expect(await claimsOf(key)).toEqual([{ owner: 'b', live: true }]);

    // The old owner's late store keeps the first response's place and leaves the new owner's claim alone.
    await repo.putAndRelease(entry(key, 'late answer'), 'a');
    expect(await claimsOf(key)).toEqual([{ owner: 'b', live: true }]);
    expect((await repo.get(key))?.output).toBe('late answer');
    await repo.putAndRelease(entry(key, 'second answer'), 'b');
    expect(await claimsOf(key)).toEqual([]);
    expect((await repo.get(key))?.output).toBe('late answer');
  });

  /** The race below, with `ours` looking up and claiming (on its own pool, or on `pool`). */
  async function raceWithPreviousOwner(ours: LlmCacheRepository): Promise<void> {
    const key = newKey();
    expect(await repo.lookupOrClaim(key, 'previous', 10_000)).toEqual({ claimed: true });
    // The previous owner stores and releases in a transaction that commits only after our look-up has begun: the
    // look-up's first snapshot misses the response, and its claim waits on the previous owner's claim row.
    const previous = new Client({ connectionString: t.url });
    await previous.connect();
    try {
      await previous.query('BEGIN');
      await new LlmCacheRepository(previous as unknown as PoolClient).putAndRelease(entry(key, 'paid by the previous owner'), 'previous');
      const lookup = ours.lookupOrClaim(key, 'next', 10_000);
      await waitForLockWait(pool, t.name);
      await previous.query('COMMIT');
      const result = await lookup;
      // The claim went through (the previous one is gone), and the response stored before it is found with it.
      expect(result.claimed).toBe(true);
      expect(result.hit?.output).toBe('paid by the previous owner');
    } finally {
      await previous.end();
    }
    await repo.release(key, 'next');
    expect(await claimsOf(key)).toEqual([]);
  }

  it('finds a response the previous owner stored while our claim waited for its release, and does not pay again', async () => {
    await raceWithPreviousOwner(repo);
  });

  it('finds it too where the default isolation is REPEATABLE READ (one snapshot per transaction)', async () => {
    const rr = new Pool({ connectionString: t.url, max: 1, options: '-c default_transaction_isolation=repeatable\\ read' });
    try {
      expect((await rr.query('SHOW default_transaction_isolation')).rows).toEqual([{ default_transaction_isolation: 'repeatable read' }]);
      await raceWithPreviousOwner(new LlmCacheRepository(rr));
    } finally {
      await rr.end();
    }
  });

  it('keeps the claim when the response cannot be stored (one transaction)', async () => {
    const key = newKey();
    await repo.lookupOrClaim(key, 'a', 10_000);
    const bad = entry(key);
    bad.response.usage.inputTokens = -1; // refused by a CHECK constraint
    await expect(repo.putAndRelease(bad, 'a')).rejects.toMatchObject({ code: '23514' });
    expect(await claimsOf(key)).toEqual([{ owner: 'a', live: true }]);
    expect(await repo.get(key)).toBeUndefined();
  });

  it('takes owners and keys with quotes and backslashes as data, never as SQL', async () => {
    const owner = `o'; DROP TABLE llm_cache_claims; -- \\' \\`;
    const key = `k\\'); DELETE FROM llm_response_cache; --'`;
    await repo.put(entry('kept-' + newKey()));
    expect(await repo.lookupOrClaim(key, owner, 10_000)).toEqual({ claimed: true });
    expect(await claimsOf(key)).toEqual([{ owner, live: true }]);
    expect(await repo.lookupOrClaim(key, 'other', 10_000)).toEqual({ claimed: false });
    await repo.putAndRelease(entry(key), owner);
    expect(await claimsOf(key)).toEqual([]);
    expect((await repo.lookupOrClaim(key, 'other', 10_000)).hit?.output).toBe(`answer to ${key}`);
    expect(Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM llm_response_cache')).rows[0]!.n)).toBeGreaterThanOrEqual(2);
  });

  it('takes them as data with standard_conforming_strings off too (backslashes in quoted SQL strings are escapes then)', async () => {
    const off = new Pool({ connectionString: t.url, max: 1, options: '-c standard_conforming_strings=off' });
    try {
      const offRepo = new LlmCacheRepository(off);
      const owner = `o\\' x`;
      const key = `k\\'); DELETE FROM llm_response_cache; -- \\\\ '' \\`;
      expect(await offRepo.lookupOrClaim(key, owner, 10_000)).toEqual({ claimed: true });
      expect(await claimsOf(key)).toEqual([{ owner, live: true }]);
      await offRepo.putAndRelease(entry(key), owner);
      expect((await offRepo.lookupOrClaim(key, 'other', 10_000)).hit?.output).toBe(`answer to ${key}`);
    } finally {
      await off.end();
    }
  });

  it('hands a client it was given back out of any transaction it opened, when its look-up fails', async () => {
    const client = new Client({ connectionString: t.url });
    await client.connect();
    try {
      const own = new LlmCacheRepository(client as unknown as PoolClient);
      // An owner of null breaks the claim's NOT NULL constraint inside the look-up's own transaction.
      await expect(own.lookupOrClaim(newKey(), null as unknown as string, 10_000)).rejects.toMatchObject({ code: '23502' });
      expect((await client.query('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
      expect(await own.lookupOrClaim(newKey(), 'c', 10_000)).toEqual({ claimed: true });
      // Inside the caller's transaction it refuses, rather than commit that transaction with its own.
      await client.query('BEGIN');
      const key = newKey();
      await expect(own.lookupOrClaim(key, 'c', 10_000)).rejects.toThrow(/runs a transaction of its own; the client given is inside one/);
      await client.query('ROLLBACK');
      expect(await claimsOf(key)).toEqual([]);
    } finally {
      await client.end();
    }
  });
});

/** Waits until a session of database `db` waits for a lock (our look-up, on the claim row). */
async function waitForLockWait(pool: Pool, db: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await pool.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
      [db],
    );
    if (rows.length > 0) return;
    if (Date.now() > deadline) throw new Error('timed out waiting for the look-up to wait on the claim row');
    await new Promise((r) => setTimeout(r, 20));
  }
}
