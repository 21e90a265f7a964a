import { readFileSync } from 'node:fs';
import { removeQueuePrefixKeys, waitFor } from '@sqlsweep/testing';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { startOrchestrator, type Orchestrator } from './support/orchestrator';
import { itemResultCounts, runRow, storedStageResults } from './support/stored-results';

jest.setTimeout(300_000);

const token = 'api-redis-loss-token-0123456789';

/**
 * A run created with POST /api/runs has no CLI following it. When Redis loses its jobs mid-run, the reconciler (in
 * the orchestrator and the workers, one at a time) must find the run unmoved and re-plan it from Postgres: it
 * finishes by itself, every item once. The keys go one by one while the worker goes on adding jobs, so some jobs may
 * be lost only in part (data without a place in the queue, or a place without data): those must come back too.
 */
describe('a run started through the API after Redis loses its jobs', () => {
  let e2e: E2eStack;
  let orchestrator: Orchestrator | undefined;

  beforeAll(async () => {
    const fast = { SQLSWEEP_RECONCILE_MS: '1000' };
    e2e = await startE2eStack({ workers: 1, simulator: { config: 'test/fixtures/llm-sim-slow.yaml' }, env: { SQLSWEEP_LLM_CONCURRENCY: '2', ...fast } });
    orchestrator = await startOrchestrator(e2e, token, fast);
  });
  afterAll(async () => {
    await orchestrator?.app.close();
    await e2e?.stop();
  });

  it('finishes with no CLI attached and no manual step, no item lost or duplicated', async () => {
    const config = readFileSync('test/fixtures/zero-shot-sweep.yaml', 'utf8').replace('items: { limit: 60 }', 'items: { limit: 20 }');
    const res = await fetch(`${orchestrator!.url}/api/runs`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ config, source: 'api-redis-loss.yaml' }),
    });
    expect(res.status).toBe(201);
    const { runId } = (await res.json()) as { runId: string };

    await waitFor('the run to be under way', async () => ((await storedStageResults(e2e.db, 'zero-shot.generate')) >= 6 ? true : undefined));
    expect(await removeQueuePrefixKeys(process.env.REDIS_URL!, e2e.prefix)).toBeGreaterThan(0);

    const status = await waitFor('the run to end', async () => {
      const run = await runRow(e2e.db, runId);
      return run.status === 'running' ? undefined : run.status;
    }, 120_000);
    expect(status).toBe('done');
    expect(await itemResultCounts(e2e.db, runId)).toEqual({ n: 40, distinct_items: 40, errored: 0 });
    const detail = (await (await fetch(`${orchestrator!.url}/api/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { run: unknown };
    expect(detail.run).toMatchObject({ id: runId, status: 'done', failureReason: null });
  });
});
