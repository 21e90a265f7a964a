import { randomBytes, randomUUID } from 'node:crypto';
import type { StageJobPayload } from '@sqlsweep/contracts';
import { carriedInputBytes, createDb, RunRepository, StageRepository, type PlannedStage } from '@sqlsweep/db';
import { Advancer } from '@sqlsweep/orchestration';
import { QueueClient } from '@sqlsweep/queue';
import { createTestDatabase, testQueuePrefix, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';
import { StageRunner, type StageRunnerDeps } from './stage-runner';

const redisUrl = testRedisUrl();
const stageKey = 'ab'.repeat(32);

/**
 * A runner whose only parts in use are the stage results, the advancer, the queue and the log: storing and
 * advancing need nothing else.
 */
function runner(advancer: Advancer, queue: QueueClient, logged: string[], stages: StageRepository, lines: Record<string, unknown>[] = []): StageRunner {
  const unused = undefined as never;
  const deps: StageRunnerDeps = {
    advancer, queue, stages, log: (obj, msg) => (logged.push(msg), lines.push(obj)),
    retrieval: unused, datasets: unused, llm: unused, sandbox: unused, replicas: unused, sqlDeadlineMs: 1_000,
  };
  return new StageRunner(deps);
}

describe('StageRunner.advance', () => {
  let db: TestDatabase;
  let queue: QueueClient;
  beforeAll(async () => {
    db = await createTestDatabase();
    queue = new QueueClient(redisUrl, testQueuePrefix());
  });
  afterAll(async () => {
    await queue.close();
    await db.drop();
  });

  it('advances in the stage job itself: no run.advance job when Postgres answers', async () => {
    const logged: string[] = [];
    await runner(new Advancer(new RunRepository(db.db), queue), queue, logged, new StageRepository(db.db)).advance({ stageKey, final: true });
    expect(await queue.queue('advance').getJob(`advance-${stageKey}`)).toBeUndefined();
    expect(logged).toEqual([]);
  });

  it('leaves advancing to a durable run.advance job when Postgres fails, and still succeeds', async () => {
    const gone = await createTestDatabase();
    const broken = createDb(gone.url, { max: 1 });
    await gone.drop(); // the runs repository now points at a database that no longer exists
    const logged: string[] = [];
    try {
      await runner(new Advancer(new RunRepository(broken), queue), queue, logged, new StageRepository(broken)).advance({ stageKey, final: false });
    } finally {
      await broken.destroy();
    }
    const job = await queue.queue('advance').getJob(`advance-${stageKey}`);
    expect(job?.name).toBe('run.advance');
    expect(job?.data).toEqual({ stageKey });
    expect(logged).toEqual(['advancing failed: left to run.advance jobs']);
  });
});

describe('StageRunner commits (store, then advance) in groups', () => {
  let db: TestDatabase;
  let queue: QueueClient;
  let runs: RunRepository;
  let stages: StageRepository;
  let versionId: number;
  const key = (name: string) => Buffer.from(name).toString('hex').padEnd(64, '0').slice(0, 64);

  beforeAll(async () => {
    db = await createTestDatabase();
    queue = new QueueClient(redisUrl, testQueuePrefix());
    runs = new RunRepository(db.db);
    stages = new StageRepository(db.db);
    const dataset = await db.db.insertInto('datasets').values({ name: 'commits' }).returning('id').executeTakeFirstOrThrow();
    versionId = (await db.db.insertInto('dataset_versions').values({ dataset_id: dataset.id, content_hash: 'c', format: 'minibench', source_path: '-', item_count: 1 })
      .returning('id').executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => {
    await queue.close();
    await db.drop();
  });

  /** A running run of `items` items, each with two input stages a and b and a stage c that reads both. */
  async function planRun(tag: string, items: number) {
    const variantId = randomUUID();
    const plan = Array.from({ length: items }, (_, i) => {
      const [a, b, c] = ['a', 'b', 'c'].map((s) => key(`${tag}${s}${i}`));
      return { item: `i${i}`, a, b, c };
    });
    const runId = await runs.createRun({
      sweep: { name: tag, source: '-', config: {}, configHash: tag }, datasetVersionId: versionId, priority: 'interactive',
      itemCount: items, stageJobs: 3 * items, reusedStages: 0, simulated: true,
      variants: [{ id: variantId, variantKey: tag, label: tag, pipeline: 'test', model: 'sim', sampleIndex: 0, params: {} }],
      stages: plan.flatMap(({ item, a, b, c }): PlannedStage[] => [
        { variantId, itemId: item, stage: 'a', stageKey: a, role: 'sql', params: {}, inputs: {}, isFinal: false },
        { variantId, itemId: item, stage: 'b', stageKey: b, role: 'sql', params: {}, inputs: {}, isFinal: false },
        { variantId, itemId: item, stage: 'c', stageKey: c, role: 'sql', params: {}, inputs: { a, b }, isFinal: true },
      ]),
    });
    const payload = (stage: string, stageKey: string, itemId: string): StageJobPayload => ({
      stageKey, stage, datasetVersionId: versionId, itemId, params: {}, inputs: {}, runId, variantId, final: false,
    });
    return plan.map((p) => ({ ...p, pa: payload('a', p.a, p.item), pb: payload('b', p.b, p.item) }));
  }

  const enqueuedC = async (keys: string[]) => (await Promise.all(keys.map((k) => queue.queue('stage-sql').getJob(k)))).filter(Boolean).length;

  it('stores each key once, reports which commit wrote it, and keeps outputs exact through the batched insert', async () => {
    const [item] = await planRun('once', 1);
    const lines: Record<string, unknown>[] = [];
    const r = runner(new Advancer(runs, queue), queue, [], stages, lines);
    const output = { sql: 'SELECT "a\\b", \'{x,y}\' FROM t -- ü 漢', list: [1, null, 'NULL'], nested: { quote: '"' } };
    await Promise.all([r.settle(item.pa, { output, simulated: true }, 'j1'), r.settle(item.pa, { output: 'other' }, 'j2'), r.settle(item.pb, { output: null }, 'j3')]);

    expect(lines.map((l) => [l.jobId, l.inserted])).toEqual([['j1', true], ['j2', false], ['j3', true]]);
    for (const l of lines) expect(l.commitMs).toEqual({ store: expect.any(Number), lookup: expect.any(Number), enqueue: expect.any(Number), close: expect.any(Number) });
    const stored = await stages.getResults([item.a, item.b]);
    expect(stored.get(item.a)).toMatchObject({ output, simulated: true });
    expect(stored.get(item.b)).toMatchObject({ output: null, simulated: false });
    expect(await enqueuedC([item.c])).toBe(1);
  });

  it('enqueues a stage whose two inputs are stored at the same moment by two workers, every time', async () => {
    const plan = await planRun('race', 25);
    const [one, two] = [0, 1].map(() => runner(new Advancer(runs, queue), queue, [], stages));
    await Promise.all(plan.flatMap((p) => [one.settle(p.pa, { output: 'a' }, undefined), two.settle(p.pb, { output: 'b' }, undefined)]));
    expect(await enqueuedC(plan.map((p) => p.c))).toBe(25);
  });

  it('does not take a stage whose last input is stored for ready while an earlier one is missing', async () => {
    const [item] = await planRun('gate', 1);
    const r = runner(new Advancer(runs, queue), queue, [], stages);
    await r.settle(item.pb, { output: 'b' }, undefined); // b is c's last input, the one checked first
    expect(await enqueuedC([item.c])).toBe(0);
    await r.settle(item.pa, { output: 'a' }, undefined);
    expect(await enqueuedC([item.c])).toBe(1);
  });

  it('puts the outputs of a ready stage\'s inputs into its job when they are small, and leaves large ones to be read', async () => {
    const [small, large] = await planRun('carry', 2);
    const r = runner(new Advancer(runs, queue), queue, [], stages);
    const big = randomBytes(carriedInputBytes * 2).toString('base64'); // stored compressed, so incompressible
    await Promise.all([
      r.settle(small.pa, { output: { sql: 'SELECT 1' } }, undefined), r.settle(small.pb, { output: ['t1', 't2'] }, undefined),
      r.settle(large.pa, { output: big }, undefined), r.settle(large.pb, { output: 'b' }, undefined),
    ]);
    const data = async (key: string) => (await queue.queue('stage-sql').getJob(key))?.data as StageJobPayload;
    expect((await data(small.c)).inputOutputs).toEqual({ [small.a]: { sql: 'SELECT 1' }, [small.b]: ['t1', 't2'] });
    expect((await data(large.c)).inputs).toEqual({ a: large.a, b: large.b });
    expect((await data(large.c)).inputOutputs).toBeUndefined();
  });

  it('fails every job of a group whose insert fails, so BullMQ retries them, and advances nothing', async () => {
    const [item] = await planRun('down', 1);
    const gone = await createTestDatabase();
    const broken = createDb(gone.url, { max: 1 });
    await gone.drop(); // the results repository now points at a database that no longer exists
    const logged: string[] = [];
    try {
      const r = runner(new Advancer(runs, queue), queue, logged, new StageRepository(broken));
      const settled = await Promise.allSettled([r.settle(item.pa, { output: 'a' }, 'ja'), r.settle(item.pb, { output: 'b' }, 'jb')]);
      expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    } finally {
      await broken.destroy();
    }
    expect(logged).toEqual([]);
    expect(await stages.getResults([item.a, item.b])).toEqual(new Map());
    expect(await enqueuedC([item.c])).toBe(0);
  });

  it('commits a result that cost an LLM call durably and a reused one asynchronously, in groups of their own, each seen by the lookup', async () => {
    const plan = await planRun('durability', 3);
    const lines: Record<string, unknown>[] = [];
    const r = runner(new Advancer(runs, queue), queue, [], stages, lines);
    // Per item: a paid result (a) and one answered from the response cache (b), both finishing in the same tick.
    await Promise.all(plan.flatMap((p) => [
      r.settle(p.pa, { output: 'a', costUsd: 0.01 }, `paid-${p.item}`), r.settle(p.pb, { output: 'b', costUsd: 0.01, reused: true }, `reused-${p.item}`),
    ]));
    const byJob = new Map(lines.map((l) => [l.jobId, l]));
    for (const p of plan) {
      expect(byJob.get(`paid-${p.item}`)).toMatchObject({ durable: true, batch: 3, inserted: true });
      expect(byJob.get(`reused-${p.item}`)).toMatchObject({ durable: false, batch: 3, inserted: true });
    }
    const stored = await stages.getResults(plan.flatMap((p) => [p.a, p.b]));
    expect([...stored.values()].map((s) => s.output).sort()).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
    expect(await enqueuedC(plan.map((p) => p.c))).toBe(3);
  });

  it('lets two workers store overlapping groups in opposite orders without deadlock, each key once', async () => {
    const plan = await planRun('overlap', 20);
    const lines: Record<string, unknown>[] = [];
    const [one, two] = [0, 1].map(() => runner(new Advancer(runs, queue), queue, [], stages, lines));
    const payloads = plan.flatMap((p) => [p.pa, p.pb]);
    await Promise.all([
      ...payloads.map((p) => one.settle(p, { output: 1 }, undefined)),
      ...[...payloads].reverse().map((p) => two.settle(p, { output: 2 }, undefined)),
    ]);
    expect(lines.filter((l) => l.inserted).length).toBe(40);
    expect(new Set(lines.filter((l) => l.inserted).map((l) => l.stageKey)).size).toBe(40);
    expect(await enqueuedC(plan.map((p) => p.c))).toBe(20);
  });
});
