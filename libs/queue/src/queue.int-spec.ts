import { randomUUID } from 'node:crypto';
import { UnrecoverableError } from 'bullmq';
import { Redis } from 'ioredis';
// nx-ignore-next-line
import { testQueuePrefix, testRedisUrl } from '@sqlsweep/testing';
import { createRedisConnection } from './connection';
import { QueueClient } from './queue-client';
import { WorkerHost } from './worker-host';
import type { JobPayload } from './job-catalog';

const redisUrl = testRedisUrl();
const key = (n: number) => n.toString(16).padStart(64, '0');
const payload = (n: number): JobPayload<'stage.sql'> => ({
  stageKey: key(n), stage: 'gold', datasetVersionId: 1, itemId: `dev-${n}`, params: {}, inputs: {},
  runId: randomUUID(), variantId: randomUUID(),
});

describe('queue client and worker host', () => {
  const prefix = testQueuePrefix();
  const client = new QueueClient(redisUrl, prefix);
  afterAll(async () => client.close());

  it('adds a job once per key, however often it is enqueued', async () => {
    await client.enqueue('stage.sql', payload(1), { key: key(1) });
    await client.enqueueMany('stage.sql', [{ payload: payload(1), key: key(1) }, { payload: payload(2), key: key(2) }]);
    const counts = await client.queue('stage-sql').getJobCounts('waiting', 'prioritized');
    expect(counts.waiting + counts.prioritized).toBe(2);
  });

  it('refuses a payload that breaks the catalog schema', async () => {
    await expect(client.enqueue('stage.sql', { ...payload(3), stageKey: 'nope' }, { key: key(3) })).rejects.toThrow(/stageKey/);
  });

  it('refuses to start without a handler for every job of its queues', () => {
    const host = new WorkerHost({ redisUrl, prefix, queues: { 'stage-sql': 1, 'stage-llm': 1 } });
    expect(() => host.start({ 'stage.sql': async () => undefined } as never)).toThrow(/no handler registered for job\(s\): stage\.llm/);
  });

  it('delivers validated payloads to the handler', async () => {
    const seen: string[] = [];
    const host = new WorkerHost({ redisUrl, prefix, queues: { 'stage-sql': 2 } });
    const done = new Promise<void>((resolve) => {
      host.start({
        'stage.sql': async (p) => {
          seen.push(p.itemId);
          if (seen.length === 2) resolve();
        },
      });
    });
    await done;
    await host.close();
    expect(seen.sort()).toEqual(['dev-1', 'dev-2']);
  });

  it('runs at most maxActive jobs at once over all its queues', async () => {
    const peakOf = async (maxActive?: number) => {
      const p = testQueuePrefix();
      const c = new QueueClient(redisUrl, p);
      for (let n = 30; n < 33; n++) {
        await c.enqueue('stage.sql', payload(n), { key: key(n) });
        await c.enqueue('stage.llm', payload(n + 10), { key: key(n + 10) });
      }
      let active = 0;
      let peak = 0;
      let done = 0;
      const host = new WorkerHost({ redisUrl, prefix: p, queues: { 'stage-sql': 3, 'stage-llm': 3 }, maxActive });
      await new Promise<void>((resolve) => {
        const handler = async () => {
          peak = Math.max(peak, ++active);
          await new Promise((r) => setTimeout(r, 30));
          active--;
          if (++done === 6) resolve();
        };
        host.start({ 'stage.sql': handler, 'stage.llm': handler, 'llm.batch': handler });
      });
      await host.close();
      await c.close();
      return peak;
    };
    expect(await peakOf(1)).toBe(1);
    expect(await peakOf()).toBeGreaterThan(1);
  });

  it('serves interactive jobs ahead of nightly ones, whichever were added first', async () => {
    const lanesPrefix = testQueuePrefix();
    const lanes = new QueueClient(redisUrl, lanesPrefix);
    await lanes.enqueue('stage.sql', payload(10), { key: key(10), priority: 'nightly' });
    await lanes.enqueue('stage.sql', payload(11), { key: key(11), priority: 'interactive' });
    await lanes.enqueue('stage.sql', payload(12), { key: key(12), priority: 'nightly' });
    await lanes.enqueue('stage.sql', payload(13), { key: key(13) });
    const seen: string[] = [];
    const host = new WorkerHost({ redisUrl, prefix: lanesPrefix, queues: { 'stage-sql': 1 } });
    await new Promise<void>((resolve) => {
      host.start({
        'stage.sql': async (p) => {
          seen.push(p.itemId);
          if (seen.length === 4) resolve();
        },
      });
    });
    await host.close();
    await lanes.close();
    expect(seen).toEqual(['dev-11', 'dev-13', 'dev-10', 'dev-12']);
  });

  it('reports a failure as final exactly when BullMQ will not retry it: an UnrecoverableError at once, else the last attempt', async () => {
    const finals = testQueuePrefix();
    const c = new QueueClient(redisUrl, finals);
    const seen: Array<{ item: string; attempt: number; final: boolean; state: string }> = [];
    let settled!: () => void;
    const allSettled = new Promise<void>((resolve) => { settled = resolve; });
    const host = new WorkerHost({
      redisUrl, prefix: finals, queues: { 'stage-sql': 2 },
      onFailed: (job, _error, final) => {
        void job.getState().then((state) => {
          seen.push({ item: (job.data as { itemId: string }).itemId, attempt: job.attemptsMade, final, state });
          if (seen.length === 4) settled(); // one attempt of dev-40, three of dev-41
        });
      },
    });
    try {
      await c.enqueueMany('stage.sql', [{ payload: payload(40), key: key(40) }, { payload: payload(41), key: key(41) }]);
      host.start({
        'stage.sql': async (p) => {
          throw p.itemId === 'dev-40' ? new UnrecoverableError('never succeeds') : new Error('transient');
        },
      });
      await allSettled;
    } finally {
      await host.close();
      await c.close();
    }
    // stage.sql has 3 attempts: the UnrecoverableError ends its job at attempt 1, the plain error at attempt 3.
    expect(seen.filter((s) => s.item === 'dev-40')).toEqual([{ item: 'dev-40', attempt: 1, final: true, state: 'failed' }]);
    expect(seen.filter((s) => s.item === 'dev-41').map((s) => [s.attempt, s.final, s.state])).toEqual([[1, false, 'delayed'], [2, false, 'delayed'], [3, true, 'failed']]);
  });

  it('replaces a job kept as completed or failed, as its work is asked for again', async () => {
    const again = testQueuePrefix();
    const c = new QueueClient(redisUrl, again);
    const host = new WorkerHost({ redisUrl, prefix: again, queues: { 'stage-sql': 1 } });
    try {
      await c.enqueueMany('stage.sql', [{ payload: payload(20), key: key(20) }, { payload: payload(21), key: key(21) }]);
      host.start({
        'stage.sql': async (p) => {
          if (p.itemId === 'dev-21') throw new UnrecoverableError('failed for good');
        },
      });
      const state = async (n: number) => (await c.queue('stage-sql').getJob(key(n)))?.getState();
      for (let i = 0; i < 100 && ((await state(20)) !== 'completed' || (await state(21)) !== 'failed'); i++) await new Promise((r) => setTimeout(r, 50));
      await host.close();
      expect([await state(20), await state(21)]).toEqual(['completed', 'failed']);

      const later = [payload(20), payload(21)];
      await c.enqueueMany('stage.sql', later.map((p, i) => ({ payload: p, key: key(20 + i) })));
      for (const [i, p] of later.entries()) {
        const job = await c.queue('stage-sql').getJob(key(20 + i));
        expect(await job?.getState()).toBe('waiting');
        expect(job?.data.runId).toBe(p.runId);
      }
    } finally {
      await c.close();
    }
  });
  it('replaces a job Redis lost in part only when asked to (re-planning), and leaves a queued one as it is', async () => {
    const lossy = testQueuePrefix();
    const c = new QueueClient(redisUrl, lossy);
    const redis = new Redis(redisUrl);
    const queue = c.queue('stage-sql');
    const jobs = (ns: number[]) => ns.map((n) => ({ payload: payload(n), key: key(n) }));
    try {
      await c.enqueueMany('stage.sql', jobs([50, 51, 52]));
      await c.enqueue('stage.sql', payload(53), { key: key(53), priority: 'nightly' }); // in the prioritized set
      const kept = await Promise.all([52, 53].map((n) => queue.getJob(key(n))));
      // As a key-by-key flush or eviction leaves them: 50's hash kept but its place in the wait list gone; 51's hash
      // gone, then written again in part (a worker's late update), in no list either. An add takes both for duplicates.
      await redis.lrem(queue.keys.wait, 0, key(50));
      await redis.lrem(queue.keys.wait, 0, key(51));
      await redis.del(queue.toKey(key(51)));
      await redis.hset(queue.toKey(key(51)), 'processedOn', Date.now());
      const states = async () => Promise.all([50, 51, 52, 53].map(async (n) => (await queue.getJob(key(n)))?.getState()));
      expect(await states()).toEqual(['unknown', 'unknown', 'waiting', 'prioritized']);

      await c.enqueueMany('stage.sql', jobs([50, 51, 52, 53]));
      expect(await states()).toEqual(['unknown', 'unknown', 'waiting', 'prioritized']);

      const again = jobs([50, 51, 52, 53]);
      await c.enqueueMany('stage.sql', again, { recoverLost: true });
      expect(await states()).toEqual(['waiting', 'waiting', 'waiting', 'prioritized']);
      for (const n of [50, 51]) expect((await queue.getJob(key(n)))?.data.runId).toBe(again[n - 50].payload.runId);
      const still = await Promise.all([52, 53].map((n) => queue.getJob(key(n))));
      expect(still.map((j) => [j?.data.runId, j?.timestamp])).toEqual(kept.map((j) => [j?.data.runId, j?.timestamp]));
      expect(await queue.getWaitingCount()).toBe(3);
    } finally {
      redis.disconnect();
      await c.close();
    }
  });
  it('runs the adds a handler sends on its host\'s connection before its job\'s completion, though the handler returns before their answer', async () => {
    const sent = testQueuePrefix();
    const shared = createRedisConnection(redisUrl);
    const c = new QueueClient(shared, sent);
    const host = new WorkerHost({ redisUrl, prefix: sent, queues: { 'stage-sql': 1 }, connection: shared });
    const watcher = new Redis(redisUrl);
    const monitor = await watcher.monitor(); // a connection of its own, in MONITOR mode
    const ran: string[][] = []; // every command Redis ran that names one of these two jobs, in the order it ran them
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.some((a) => a.includes(key(70)) || a.includes(key(71)))) ran.push(args);
    });
    try {
      await c.enqueue('stage.sql', payload(70), { key: key(70) });
      let acknowledged!: Promise<void>;
      const completed = new Promise<void>((resolve) => {
        host.start({
          'stage.sql': async (p) => {
            if (p.itemId !== 'dev-70') return;
            ({ acknowledged } = await c.sendMany('stage.llm', [{ payload: payload(71), key: key(71) }]));
            setTimeout(resolve, 200);
          },
        });
      });
      await completed;
      await acknowledged;
      // Redis shows the commands its scripts run: 71 put in the llm queue's wait list, 70 into the sql queue's completed set.
      const adds71 = ran.findIndex(([command, list, id]) => command.toUpperCase() === 'LPUSH' && list.endsWith(':stage-llm:wait') && id === key(71));
      const completes70 = ran.findIndex(([command, set, , id]) => command.toUpperCase() === 'ZADD' && set.endsWith(':stage-sql:completed') && id === key(70));
      expect(adds71).toBeGreaterThanOrEqual(0);
      expect(completes70).toBeGreaterThan(adds71);
      expect(await (await c.queue('stage-llm').getJob(key(71)))?.getState()).toBe('waiting');
      expect(await (await c.queue('stage-sql').getJob(key(70)))?.getState()).toBe('completed');
    } finally {
      monitor.disconnect();
      watcher.disconnect();
      await host.close();
      await c.close();
      shared.disconnect();
    }
  });

  it('waits between attempts as the catalog says: a third failed LLM attempt 2 s, a seventh 8 s (the cap), not 32 s', async () => {
    const capped = testQueuePrefix();
    const c = new QueueClient(redisUrl, capped);
    const redis = new Redis(redisUrl);
    const host = new WorkerHost({ redisUrl, prefix: capped, queues: { 'stage-llm': 1 } });
    const queue = c.queue('stage-llm');
    try {
      for (const [n, failedBefore] of [[60, 2], [61, 6]]) {
        await c.enqueue('stage.llm', payload(n), { key: key(n) });
        await redis.hset(queue.toKey(key(n)), 'atm', failedBefore); // as after that many failed attempts
      }
      let failures = 0;
      const failed = new Promise<void>((resolve) => {
        host.start({ 'stage.llm': async () => { if (++failures === 2) setImmediate(resolve); throw new Error('transient'); }, 'llm.batch': async () => undefined });
      });
      await failed;
      const seen = async () => Promise.all([60, 61].map(async (n) => {
        const job = await queue.getJob(key(n));
        return [await job?.getState(), job?.attemptsMade, job?.delay];
      }));
      let now = await seen();
      for (let i = 0; i < 100 && now.some(([state]) => state !== 'delayed'); i++) {
        await new Promise((r) => setTimeout(r, 20));
        now = await seen();
      }
      expect(now).toEqual([['delayed', 3, 2_000], ['delayed', 7, 8_000]]);
    } finally {
      await host.close();
      redis.disconnect();
      await c.close();
    }
  });
});
