/**
 * Redis Cluster readiness: the queues (QueueClient, WorkerHost: BullMQ's Lua scripts), the LLM rate budget, the model
 * pauses and the reconciler's lease run against a 3-primary Redis Cluster started from redis-server on free ports,
 * reached by REDIS_URL=redis+cluster://…. A multi-key script whose keys spanned slots would fail with CROSSSLOT here;
 * the test also checks that each queue's keys and each model's keys sit in one slot.
 * Skips, saying why in one line, where redis-server or redis-cli is missing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRedisBinaries, REDIS_CONF, startPrivateCluster, type PrivateCluster } from '@sqlsweep/infra';
import { llmBudgetPrefix, ModelPauses, RedisRateBudget, type BudgetRequest } from '@sqlsweep/llm';
import { createRedisConnection, jobIdFor, QueueClient, queueKeyPrefix, RedisLease, WorkerHost, type RedisClient } from '@sqlsweep/queue';
import { testQueuePrefix, waitFor } from '@sqlsweep/testing';
import { Cluster } from 'ioredis';

jest.setTimeout(60_000);

const binaries = findRedisBinaries();
const unavailable = typeof binaries === 'string' ? binaries : undefined;
if (unavailable) console.log(`redis cluster e2e skipped: ${unavailable}`);
const describeCluster = unavailable ? describe.skip : describe;

/** Every key under `prefix` on every primary, with its slot and the port of the primary holding it. */
async function keysOf(redis: Cluster, prefix: string): Promise<Array<{ key: string; slot: number; port: number }>> {
  const out: Array<{ key: string; slot: number; port: number }> = [];
  await redis.ping(); // a new Cluster client knows its nodes once it has connected
  for (const node of redis.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) out.push({ key, slot: Number(await node.call('CLUSTER', 'KEYSLOT', key)), port: node.options.port! });
    } while (cursor !== '0');
  }
  return out;
}

const slotsBy = (keys: Array<{ key: string; slot: number }>, group: (key: string) => string | undefined) => {
  const slots = new Map<string, Set<number>>();
  for (const { key, slot } of keys) {
    const g = group(key);
    if (g !== undefined) slots.set(g, (slots.get(g) ?? new Set()).add(slot));
  }
  return slots;
};

describeCluster('queues and the LLM rate budget on a 3-primary Redis Cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-cluster-'));
  const prefix = testQueuePrefix();
  let cluster: PrivateCluster;
  const opened: RedisClient[] = [];
  const connect = () => {
    const c = createRedisConnection(cluster.url);
    opened.push(c);
    return c as Cluster;
  };

  beforeAll(async () => {
    const started = Date.now();
    cluster = await startPrivateCluster({ dir, binaries: binaries as { server: string; cli: string }, confPath: REDIS_CONF });
    console.log(`redis cluster e2e: 3 primaries up in ${(Date.now() - started) / 1000} s at ${cluster.url}`);
  });
  afterAll(async () => {
    for (const c of opened) c.disconnect();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is a Cluster connection from a redis+cluster:// REDIS_URL', () => {
    expect(connect()).toBeInstanceOf(Cluster);
  });

  it('runs jobs through QueueClient and WorkerHost: adds, retries with backoff, priorities, re-adds of finished ids, depths, workers', async () => {
    const queue = new QueueClient(cluster.url, prefix);
    const host = new WorkerHost({ redisUrl: cluster.url, prefix, queues: { 'stage-retrieval': 4, advance: 2 }, lockDurationMs: 5_000 });
    const ran: string[] = [];
    const failedOnce = new Set<string>();
    try {
      host.start({
        'index.build': async (p) => {
          // Each job fails its first attempt: BullMQ moves it to delayed and back (its backoff scripts, in the queue's slot).
          if (!failedOnce.has(p.dbId)) {
            failedOnce.add(p.dbId);
            throw new Error('first attempt fails');
          }
          ran.push(p.dbId);
        },
        'stage.retrieval': async () => undefined,
        'run.advance': async (p) => { ran.push(`advance-${p.stageKey}`); },
      });
      const jobs = Array.from({ length: 20 }, (_, i) => ({ key: `db${i}`, payload: { datasetVersionId: 1, dbId: `db${i}`, kind: 'table' as const }, priority: i % 2 ? 'nightly' as const : 'interactive' as const }));
      await queue.enqueueMany('index.build', jobs);
      await queue.enqueue('run.advance', { stageKey: 'ab'.repeat(32) }, { key: 'ab'.repeat(32) });
      await waitFor('every job to run', async () => (ran.length >= 21 ? true : undefined), 30_000, 100);
      expect(ran.filter((r) => r.startsWith('db')).sort()).toEqual(jobs.map((j) => j.key).sort());
      expect(await queue.workerCount('stage-retrieval')).toBe(1);
      // A finished id is replaced when added again (one pipeline over the completed and failed sets: one slot).
      await queue.enqueueMany('index.build', jobs.slice(0, 3).map((j) => ({ ...j, payload: { ...j.payload } })));
      for (const j of jobs.slice(0, 3)) failedOnce.delete(j.key);
      await waitFor('the re-added jobs to run again', async () => (ran.length >= 24 ? true : undefined), 30_000, 100);
      const depths = await queue.depths();
      expect(depths['stage-retrieval']).toMatchObject({ waiting: 0, active: 0, delayed: 0, prioritized: 0 });
    } finally {
      await host.close();
      await queue.close();
    }
    // Re-planning's look for jobs lost in part reads the queue's lists in the same script, in the queue's slot.
    const replan = new QueueClient(cluster.url, prefix);
    try {
      const later = [{ key: 'db-later', payload: { datasetVersionId: 1, dbId: 'db-later', kind: 'table' as const } }];
      await replan.enqueueMany('index.build', later, { recoverLost: true });
      await replan.enqueueMany('index.build', later, { recoverLost: true });
      expect((await replan.depths())['stage-retrieval']).toMatchObject({ waiting: 1, active: 0 });
      // Lost in part (its place in the wait list gone, its data kept): a plain add leaves it out, re-planning's adds it.
      const retrieval = replan.queue('stage-retrieval');
      const id = jobIdFor('index.build', 'db-later');
      const redis = connect();
      await redis.lrem(retrieval.keys.wait, 0, id);
      await replan.enqueueMany('index.build', later);
      expect(await (await retrieval.getJob(id))?.getState()).toBe('unknown');
      await replan.enqueueMany('index.build', later, { recoverLost: true });
      expect(await (await retrieval.getJob(id))?.getState()).toBe('waiting');
    } finally {
      await replan.close();
    }

    const keys = await keysOf(connect(), prefix);
    const byQueue = slotsBy(keys, (k) => /^[^:]+:\{([^}]+)\}:/.exec(k)?.[1]);
    expect([...byQueue.keys()].sort()).toEqual(['advance', 'stage-retrieval']);
    for (const [queueName, slots] of byQueue) expect({ queueName, slots: slots.size }).toEqual({ queueName, slots: 1 });
    expect(keys.every((k) => k.key.startsWith(`${queueKeyPrefix(prefix, 'advance')}:`) || k.key.startsWith(`${queueKeyPrefix(prefix, 'stage-retrieval')}:`))).toBe(true);
  });

  it('spends, blocks, pauses and resumes the rate budget of models that live on different primaries', async () => {
    const redis = connect();
    const budgetPrefix = llmBudgetPrefix(prefix);
    const budget = new RedisRateBudget({ redis, keyPrefix: budgetPrefix, burstSeconds: 1, maxWaitMs: 5_000 });
    const limits = { rpm: 600, inputTpm: 1e6, outputTpm: 1e6, concurrency: 2 };
    const request = (model: string): BudgetRequest => ({ model, limits, inputTokens: 10, outputTokens: 10, priority: 'interactive', leaseMs: 10_000 });
    // Model names whose hash tags land on different primaries (the slot of `{name}` is the slot of `name`).
    const models = ['model-a', 'model-b', 'model-c', 'model-d', 'model-e', 'model-f'];

    for (const model of models) {
      const leases = await Promise.all([budget.acquire(request(model)), budget.acquire(request(model))]);
      await Promise.all(leases.map((l) => budget.settle(l, { inputTokens: 8, outputTokens: 12 })));
      await budget.observe(model, limits, { limitRequests: 500, remainingRequests: 400 });
      expect(await budget.learnedLimits(model)).toMatchObject({ rpm: 500 });
    }
    await budget.blockFor('model-a', 200);
    const blocked = Date.now();
    await budget.settle(await budget.acquire(request('model-a')), { inputTokens: 1, outputTokens: 1 });
    expect(Date.now() - blocked).toBeGreaterThanOrEqual(150);

    await budget.pause('model-b', 'quota spent');
    await budget.pause('model-e', 'credit spent');
    const pauses = new ModelPauses(redis, budgetPrefix);
    expect(await pauses.list()).toEqual([{ model: 'model-b', reason: 'quota spent' }, { model: 'model-e', reason: 'credit spent' }]);
    expect(await pauses.resume('model-b')).toBe('quota spent');
    expect(await pauses.list()).toEqual([{ model: 'model-e', reason: 'credit spent' }]);

    const keys = await keysOf(redis, budgetPrefix);
    const byModel = slotsBy(keys, (k) => /\{([^}]+)\}/.exec(k)?.[1]);
    expect([...byModel.keys()].sort()).toEqual(models);
    for (const [model, slots] of byModel) expect({ model, slots: slots.size }).toEqual({ model, slots: 1 });
    const primaries = new Set(keys.map((k) => k.port));
    expect(primaries.size).toBeGreaterThan(1);
  });

  it('holds, renews and hands over the reconciler lease', async () => {
    const first = new RedisLease(cluster.url, `${prefix}:reconciler-lease`, 2_000);
    const second = new RedisLease(cluster.url, `${prefix}:reconciler-lease`, 2_000);
    try {
      expect(await first.hold()).toBe(true);
      expect(await first.hold()).toBe(true);
      expect(await second.hold()).toBe(false);
      await first.close();
      expect(await second.hold()).toBe(true);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
