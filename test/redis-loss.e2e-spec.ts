import IORedis from 'ioredis';
import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { itemResultCounts, runRow, waitForStageResults } from './support/stored-results';

jest.setTimeout(400_000);

/**
 * Redis holds only work in flight. Wiping this sweep's queues mid-run (what a Redis restart without persistence
 * does) must cost time, not results: the run is re-planned from Postgres and finishes with every item once.
 */
describe('losing every queued job mid-sweep', () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 2, simulator: { config: 'test/fixtures/llm-sim-slow.yaml' }, env: { SQLSWEEP_LLM_CONCURRENCY: '2' } });
  });
  afterAll(() => e2e?.stop());

  it('finishes from Postgres with no item lost or duplicated', async () => {
    const cli = e2e.startSweep('test/fixtures/zero-shot-sweep.yaml', ['--stall-seconds', '3']);
    await waitForStageResults(e2e.db, 'zero-shot.generate', 10, cli);
    const redis = new IORedis(process.env.REDIS_URL!);
    const keys = await redis.keys(`${e2e.prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    redis.disconnect();

    const result = await cli.finished;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/no progress for 3s: re-checked \d+ ready stages/);
    const runId = runIdOf(result.stdout);
    expect(await itemResultCounts(e2e.db, runId)).toEqual({ n: 120, distinct_items: 120, errored: 0 });
    expect((await runRow(e2e.db, runId)).status).toBe('done');
  });
});
