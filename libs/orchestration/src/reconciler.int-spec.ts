import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RunRepository } from '@sqlsweep/db';
import { QueueClient } from '@sqlsweep/queue';
// nx-ignore-next-line
import { createTestDatabase, testQueuePrefix, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';
import { Advancer } from './advancer';
import { Reconciler, type ReconcilerOptions } from './reconciler';

const redisUrl = testRedisUrl();
const key = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0').slice(0, 64);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The reconciler over real Postgres and Redis: one active at a time through its lease, and what a pass re-plans. */
describe('the reconciler', () => {
  let t: TestDatabase;
  let runs: RunRepository;
  const made: Reconciler[] = [];
  const clients: QueueClient[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    runs = new RunRepository(t.db);
  });
  afterAll(async () => {
    await Promise.all(made.map((r) => r.stop()));
    await Promise.all(clients.map((c) => c.close()));
    await t?.drop();
  });

  function reconciler(prefix: string, opts: Partial<ReconcilerOptions> = {}): Reconciler {
    const queue = new QueueClient(redisUrl, prefix);
    clients.push(queue);
    const r = new Reconciler({ runs, advancer: new Advancer(runs, queue) }, { redisUrl, queuePrefix: prefix, intervalMs: 100, ...opts });
    made.push(r);
    return r;
  }

  it('is active in one process at a time, and another takes over when the holder stops or dies', async () => {
    const prefix = testQueuePrefix();
    const [a, b] = [reconciler(prefix, { leaseMs: 800 }), reconciler(prefix, { leaseMs: 800 })];
    const first = await a.tick();
    expect(first).toBeDefined();
    for (let i = 0; i < 5; i++) {
      expect(await b.tick()).toBeUndefined();
      expect(await a.tick()).toBeDefined();
      expect([a.active, b.active]).toEqual([true, false]);
    }
    // The holder dies (stops renewing): the lease lapses after leaseMs and the other takes it.
    await sleep(900);
    expect(await b.tick()).toBeDefined();
    expect(await a.tick()).toBeUndefined();
    expect([a.active, b.active]).toEqual([false, true]);
    // The holder stops: it gives the lease up, and the other has it at its next tick.
    await b.stop();
    expect(await a.tick()).toBeDefined();

    // Started side by side on their own timers: one is active, the other waits.
    const prefix2 = testQueuePrefix();
    const timed = [reconciler(prefix2), reconciler(prefix2), reconciler(prefix2)];
    for (const r of timed) r.start();
    await sleep(700);
    expect(timed.filter((r) => r.active)).toHaveLength(1);
    // Stopped here, not at the end of the file: a pass covers every running run of the database, whatever its queue
    // prefix, so the active one would otherwise also pass over the next test's run and could close it first.
    await Promise.all(timed.map((r) => r.stop()));
  });

  it('re-adds the ready stages of a run that has not moved since its previous pass, and leaves a moving run alone', async () => {
    const prefix = testQueuePrefix();
    const r = reconciler(prefix);
    const queue = clients.at(-1)!;
    const dataset = await t.db.insertInto('datasets').values({ name: 'heal' }).returning('id').executeTakeFirstOrThrow();
    const version = await t.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'heal', format: 'minibench', source_path: '-', item_count: 1 })
      .returning('id').executeTakeFirstOrThrow();
    await t.db.insertInto('dataset_items').values({ version_id: version.id, item_id: 'd1', position: 0, split: 'dev', db_id: 'db', question: 'q', evidence: null, gold_sql: 'SELECT 1', difficulty: null, hardness: null }).execute();
    const variantId = randomUUID();
    const runId = await runs.createRun({
      sweep: { name: 'heal', source: '-', config: {}, configHash: 'heal' }, datasetVersionId: version.id, priority: 'interactive',
      itemCount: 1, stageJobs: 2, reusedStages: 0, simulated: true,
      variants: [{ id: variantId, variantKey: 'heal', label: 'heal', pipeline: 'test', model: 'sim', sampleIndex: 0, params: {} }],
      stages: [
        { variantId, itemId: 'd1', stage: 'gold', stageKey: key('heal-gold'), role: 'sql', params: {}, inputs: {}, isFinal: false },
        { variantId, itemId: 'd1', stage: 'eval', stageKey: key('heal-eval'), role: 'sql', params: {}, inputs: { gold: key('heal-gold') }, isFinal: true },
      ],
    });
    const queued = async () => (await queue.queue('stage-sql').getJob(key('heal-gold')))?.getState();
    expect(await queued()).toBeUndefined(); // as after Redis lost its jobs: the run waits on a job no one has

    expect(await r.tick()).toEqual({ running: 1, rechecked: [], enqueued: 0, finished: [], failed: [] }); // first look
    expect(await queued()).toBeUndefined();
    expect(await r.tick()).toEqual({ running: 1, rechecked: [runId], enqueued: 1, finished: [], failed: [] }); // unmoved
    expect(await queued()).toBe('waiting');
    // Redis loses the job in part (its place in the wait list, not its data): a plain add would take it for a
    // duplicate; the next pass replaces it.
    const redis = new Redis(redisUrl);
    await redis.lrem(queue.queue('stage-sql').keys.wait, 0, key('heal-gold')).finally(() => redis.disconnect());
    expect(await queued()).toBe('unknown');
    expect(await r.tick()).toEqual({ running: 1, rechecked: [runId], enqueued: 1, finished: [], failed: [] });
    expect(await queued()).toBe('waiting');

    // The run moves (an item result, as a worker would leave): the next pass leaves it alone.
    await t.db.insertInto('item_results').values({ run_id: runId, variant_id: variantId, item_id: 'd1', final_stage_key: key('heal-eval'), correct: true, errored: false, reason: 'ok', simulated: true, input_tokens: 0, output_tokens: 0, cost_usd: 0, latency_ms: 0 }).execute();
    expect(await r.tick()).toEqual({ running: 1, rechecked: [], enqueued: 0, finished: [], failed: [] });
    // Unmoved again, and every item has its result: the pass closes the run.
    expect(await r.tick()).toEqual({ running: 1, rechecked: [runId], enqueued: 1, finished: [runId], failed: [] });
    expect((await runs.getRun(runId))?.status).toBe('done');
  });
});
