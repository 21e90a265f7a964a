import { parseSweepConfig, type StageJobPayload } from '@sqlsweep/contracts';
import { createDatasetFileStore, LlmCacheRepository, StageRepository, type Db } from '@sqlsweep/db';
import { ReplicaMaterializer } from '@sqlsweep/datasets';
import { LlmClient, loadModelCatalog } from '@sqlsweep/llm';
import { Advancer, OrchestratorCore, registerDataset } from '@sqlsweep/orchestration';
import { SandboxPool } from '@sqlsweep/sql-sandbox';
// nx-ignore-next-line
import { minibenchDir, startSimulator, useTestCore, type Simulator } from '@sqlsweep/testing';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { StageRunner } from './stage-runner';

jest.setTimeout(120_000);

/**
 * Durability follows cost, through a real LLM stage job: the response cache (Postgres) and the simulator over HTTP.
 * An answer the cache stored is its durable copy, so the stage result is committed asynchronously; an answer the
 * cache could not store (kept in the worker's memory to store later) makes the stage result durable.
 */
describe('StageRunner: an LLM stage result and the response cache', () => {
  const testCore = useTestCore(OrchestratorCore);
  let sim: Simulator;
  let sandbox: SandboxPool;
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    sim = await startSimulator();
    sandbox = new SandboxPool({ size: 1, standby: false });
    await registerDataset(testCore.core.datasets, { name: 'minibench', format: 'minibench', path: minibenchDir, dataDir: testCore.dataDir });
  });
  afterEach(async () => {
    // Before the test's database is dropped (useTestCore's afterAll), which would end these connections under them.
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    await sandbox?.close();
    await sim?.stop();
  });

  /** A runner like a worker's, its response cache on `cachePool`; its `stage done` lines go to `lines`. */
  function runner(cachePool: Pool, lines: Record<string, unknown>[]): StageRunner {
    const core = testCore.core;
    const llm = new LlmClient({
      catalog: loadModelCatalog(join(__dirname, '..', '..', '..', 'configs', 'models.yaml')), env: { SQLSWEEP_LLM_SIM_URL: sim.url },
      cache: new LlmCacheRepository(cachePool), keptRetry: { firstMs: 50, maxMs: 100 },
    });
    closers.push(() => llm.close(0));
    return new StageRunner({
      retrieval: undefined as never, datasets: core.datasets, stages: new StageRepository(core.db), queue: core.queue,
      advancer: new Advancer(core.runs, core.queue), llm, sandbox, sqlDeadlineMs: 5_000,
      replicas: new ReplicaMaterializer({ dataDir: testCore.dataDir, store: createDatasetFileStore(core.db as Db, undefined) }),
      log: (obj, msg) => msg === 'stage done' && lines.push(obj),
    });
  }

  /** The zero-shot generate jobs of a fresh run of `items` items, as the advancer enqueued them. */
  async function generateJobs(name: string, items: number) {
    const config = parseSweepConfig([`name: ${name}`, 'dataset: minibench', 'split: dev', `items: { limit: ${items} }`, 'models: [sim-strong]', 'pipelines:', '  - pipeline: zero-shot', ''].join('\n'), `${name}.yaml`);
    const { runId } = await testCore.core.planner.planRun(config, `${name}.yaml`);
    await testCore.core.advancer.reconcile(runId!);
    const jobs = await testCore.core.queue.queue('stage-llm').getJobs(['prioritized', 'waiting']);
    return jobs.filter((j) => (j.data as StageJobPayload).runId === runId && (j.data as StageJobPayload).stage === 'zero-shot.generate');
  }

  it('commits a result asynchronously when the cache stored its answer, durably when it could not', async () => {
    const cachePool = new Pool({ connectionString: testCore.database.url, max: 2 });
    closers.push(() => cachePool.end());
    const lines: Record<string, unknown>[] = [];
    const jobs = await generateJobs('cache-up', 2);
    expect(jobs).toHaveLength(2);
    const stored = runner(cachePool, lines);
    for (const job of jobs) await stored.run(job.data as StageJobPayload, job);
    expect(lines.map((l) => ({ stage: l.stage, inserted: l.inserted, durable: l.durable }))).toEqual(
      jobs.map(() => ({ stage: 'zero-shot.generate', inserted: true, durable: false })));
    const cached = await cachePool.query<{ n: number }>('SELECT count(*)::int AS n FROM llm_response_cache');
    expect(cached.rows[0].n).toBe(2);

    // A third item's stage while the cache cannot take its answer: another session holds a lock that blocks writes to
    // the cache (reads go on), and the cache's connections give up on a statement after 300 ms. The answer is then
    // held in memory only, so the stage result is its one durable copy.
    const slowPool = new Pool({ connectionString: testCore.database.url, max: 2, options: '-c statement_timeout=300' });
    closers.push(() => slowPool.end());
    const locker = new Client({ connectionString: testCore.database.url });
    await locker.connect();
    closers.push(() => locker.end());
    const keptLines: Record<string, unknown>[] = [];
    const [job] = (await generateJobs('cache-locked', 3)).filter((j) => !jobs.some((k) => (k.data as StageJobPayload).itemId === (j.data as StageJobPayload).itemId));
    await locker.query('BEGIN; LOCK TABLE llm_response_cache IN SHARE MODE');
    try {
      await runner(slowPool, keptLines).run(job.data as StageJobPayload, job);
    } finally {
      await locker.query('ROLLBACK');
    }
    expect(keptLines).toEqual([expect.objectContaining({ stage: 'zero-shot.generate', inserted: true, durable: true })]);
    expect((await testCore.core.stages.getResults([(job.data as StageJobPayload).stageKey])).size).toBe(1);
  });
});
