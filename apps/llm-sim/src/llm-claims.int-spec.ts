import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { LlmCacheRepository } from '@sqlsweep/db';
import { LlmClient, type LlmRequest } from '@sqlsweep/llm';
import { createTestDatabase, type TestDatabase } from '@sqlsweep/testing';
import { startLlmSimulator, type LlmSimulator, type LlmSimulatorHandle } from './server';
import { CLAIM_SIM_CONFIG, claimCatalog, claimRequest } from './testing/claim-fixtures';
import { CuttableProxy } from './testing/cuttable-proxy';
import { BIRD_SAMPLE } from './testing/sim-fixtures';

const root = join(__dirname, '..', '..', '..');

interface ClaimRow { owner: string; expires_in_ms: number }

/** LLM call claims held by live processes, through real Postgres and the simulator. */
describe('LLM call claims owned by live processes', () => {
  let t: TestDatabase;
  let pool: Pool;
  let sim: LlmSimulatorHandle & { simulator: LlmSimulator };
  const questions = (JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as Array<{ question: string }>).map((q) => q.question);
  const clients: LlmClient[] = [];
  const pools: Pool[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    pool = new Pool({ connectionString: t.url, max: 2 });
    sim = await startLlmSimulator({ datasetDirs: [BIRD_SAMPLE], config: CLAIM_SIM_CONFIG });
    // Loads the tokenizer (seconds on a busy machine) before any timing below.
    new LlmClient({ catalog: claimCatalog(), env: { SIM_URL: sim.url, SIM_KEY: 'sk-claims' } }).estimateCall(claimRequest('t-long', 'warm-up'));
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close(0)));
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });
  afterAll(async () => {
    await sim?.close();
    await pool?.end();
    await t?.drop();
  });

  /** A client with a pool of its own, as a worker process has. */
  function client(claims: { ttlMs?: number; renewEveryMs?: number } = {}, url = t.url, keptRetry?: { firstMs: number; maxMs: number }): LlmClient {
    const own = new Pool({ connectionString: url, max: 2 });
    own.on('error', () => undefined);
    pools.push(own);
    const c = new LlmClient({ catalog: claimCatalog(), env: { SIM_URL: sim.url, SIM_KEY: 'sk-claims' }, cache: new LlmCacheRepository(own), claims, ...(keptRetry ? { keptRetry } : {}) });
    clients.push(c);
    return c;
  }
  const requests = (model: string) => sim.simulator.statsSnapshot()[model]?.requests ?? 0;
  const claimRows = async () =>
    (await pool.query<ClaimRow>(`SELECT owner, (extract(epoch FROM expires_at - now()) * 1000)::int AS expires_in_ms FROM llm_cache_claims`)).rows;
  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it("a killed owner's claim lapses within its TTL, and an identical call elsewhere goes ahead at once", async () => {
    const req = claimRequest('t-long', questions[0]!);
    const before = requests('t-long');
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/llm-sim/src/testing/claiming-caller.ts'], {
      cwd: root,
      env: { ...process.env, CLAIM_DATABASE_URL: t.url, SIM_URL: sim.url, CLAIM_REQUEST: JSON.stringify(req), CLAIM_TTL_MS: '1500' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let childOutput = '';
    child.stdout.on('data', (d: Buffer) => (childOutput += d.toString()));
    child.stderr.on('data', (d: Buffer) => (childOutput += d.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      // The child holds the claim and its call is in flight at the simulator: kill it there.
      await until('the child to claim and call', async () => ((await claimRows()).length === 1 && requests('t-long') > before ? true : undefined), 45_000);
      child.kill('SIGKILL');
      await exited;
      expect(childOutput).toBe('');

      const killedAt = Date.now();
      const other = client();
      const call = other.complete(req);
      // The other process takes over within the claim's TTL (1.5 s), not after 2 x timeout + 60 s = 80 s.
      await until('the other process to take the claim over', async () => ((await claimRows())[0]?.owner === other.claimOwner ? true : undefined), 20_000);
      expect(Date.now() - killedAt).toBeLessThan(1_500 + 3_000);
      const response = await call;
      expect(response.cached).toBe(false);
      expect(requests('t-long') - before).toBe(2);
      expect(await claimRows()).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 75_000);

  it('a live owner renews its claim through a call longer than the TTL, and puts it back after a crash empties the table', async () => {
    const req = claimRequest('t-long', questions[1]!);
    const before = requests('t-long');
    const owner = client({ ttlMs: 1_000, renewEveryMs: 200 });
    const first = owner.complete(req);
    const seen = await until('the claim', async () => (await claimRows())[0]);
    expect(seen.expires_in_ms).toBeLessThanOrEqual(1_000);
    expect(seen.owner).toBe(owner.claimOwner);

    // Past the TTL, the claim is still the owner's and still short-lived: it is being renewed.
    await new Promise((r) => setTimeout(r, 1_300));
    const renewed = await claimRows();
    expect(renewed).toHaveLength(1);
    expect(renewed[0]!.owner).toBe(owner.claimOwner);
    expect(renewed[0]!.expires_in_ms).toBeGreaterThan(0);
    expect(renewed[0]!.expires_in_ms).toBeLessThanOrEqual(1_000);

    // A claim lost (an immediate Postgres restart loses those of its last fraction of a second): the live owner's
    // next renewal puts it back.
    await pool.query('TRUNCATE llm_cache_claims');
    const back = await until('the claim to be re-asserted', async () => (await claimRows())[0], 2_000);
    expect(back.owner).toBe(owner.claimOwner);

    // Another process's identical call waits for the owner's answer instead of paying again.
    const [a, b] = await Promise.all([first, client().complete(req)]);
    expect(requests('t-long') - before).toBe(1);
    expect(a.cached).toBe(false);
    expect(b.cached).toBe(true);
    expect(b.output).toBe(a.output);
    expect(await claimRows()).toEqual([]);
  }, 30_000);

  it('a response received while Postgres is unreachable is kept, answers a repeat, and is stored once Postgres is back', async () => {
    const req: LlmRequest = claimRequest('t-mid', questions[2]!);
    const before = requests('t-mid');
    const proxy = await CuttableProxy.start(Number(new URL(t.url).port || 5432));
    try {
      const worker = client({ ttlMs: 1_000, renewEveryMs: 200 }, proxy.urlFor(t.url), { firstMs: 100, maxMs: 300 });
      const call = worker.complete(req);
      await until('the claim', async () => (await claimRows())[0]);
      // Postgres goes away while the call is in flight, and comes back after a crash that emptied the claims.
      proxy.outage();
      await pool.query('TRUNCATE llm_cache_claims');
      const response = await call;
      expect(response.cached).toBe(false);
      expect(worker.keptResponses).toBe(1);
      const stored = () => pool.query("SELECT output FROM llm_response_cache WHERE model = 't-mid'").then((r) => r.rows as Array<{ output: string }>);
      expect(await stored()).toEqual([]);

      // The job retried after its stage store failed: answered from memory, no second provider call.
      const again = await worker.complete(req);
      expect(again.output).toBe(response.output);
      expect(again.cached).toBe(true);
      expect(requests('t-mid') - before).toBe(1);

      proxy.restore();
      const rows = await until('the kept response to be stored', async () => ((await stored()).length > 0 ? stored() : undefined), 5_000);
      expect(rows).toEqual([{ output: response.output }]);
      expect(worker.keptResponses).toBe(0);
      await until('the claim to be released', async () => ((await claimRows()).length === 0 ? true : undefined), 2_000);

      // Every process now finds it in Postgres.
      const elsewhere = await client().complete(req);
      expect(elsewhere.cached).toBe(true);
      expect(elsewhere.output).toBe(response.output);
      expect(requests('t-mid') - before).toBe(1);
    } finally {
      await proxy.close();
    }
  }, 30_000);
});
