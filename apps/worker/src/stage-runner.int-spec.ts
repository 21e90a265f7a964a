import { createDb, RunRepository } from '@sqlsweep/db';
import { Advancer } from '@sqlsweep/orchestration';
import { QueueClient } from '@sqlsweep/queue';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { StageRunner, type StageRunnerDeps } from './stage-runner';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const stageKey = 'ab'.repeat(32);

/** A runner whose only parts in use are the advancer, the queue and the log; advancing needs nothing else. */
function runner(advancer: Advancer, queue: QueueClient, logged: string[]): StageRunner {
  const unused = undefined as never;
  const deps: StageRunnerDeps = {
    advancer, queue, log: (_obj, msg) => logged.push(msg),
    retrieval: unused, datasets: unused, stages: unused, llm: unused, sandbox: unused, sqlDeadlineMs: 1_000,
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
    await runner(new Advancer(new RunRepository(db.db), queue), queue, logged).advance({ stageKey, final: true });
    expect(await queue.queue('advance').getJob(`advance-${stageKey}`)).toBeUndefined();
    expect(logged).toEqual([]);
  });

  it('leaves advancing to a durable run.advance job when Postgres fails, and still succeeds', async () => {
    const gone = await createTestDatabase();
    const broken = createDb(gone.url, { max: 1 });
    await gone.drop(); // the runs repository now points at a database that no longer exists
    const logged: string[] = [];
    try {
      await runner(new Advancer(new RunRepository(broken), queue), queue, logged).advance({ stageKey, final: false });
    } finally {
      await broken.destroy();
    }
    const job = await queue.queue('advance').getJob(`advance-${stageKey}`);
    expect(job?.name).toBe('run.advance');
    expect(job?.data).toEqual({ stageKey });
    expect(logged).toEqual(['advancing failed: left to a run.advance job']);
  });
});
