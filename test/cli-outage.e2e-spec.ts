import { findRunId, runIdOf } from './support/cli-output';
import { waitFor } from '@sqlsweep/testing';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { PrivatePostgresServer } from './support/private-postgres-server';
import { itemResultCounts, runRow, waitForStageResults } from './support/stored-results';

jest.setTimeout(300_000);

/**
 * `sqlsweep run` follows a run by reading Postgres; a Postgres restart of a few seconds must cost the user a line of
 * output and a few seconds, not the command (which used to die with an unhandled ECONNREFUSED and a stack trace).
 */
describe('sqlsweep run following a run through a Postgres restart', () => {
  let postgres: PrivatePostgresServer;
  let e2e: E2eStack;

  beforeAll(async () => {
    postgres = await PrivatePostgresServer.start();
    e2e = await startE2eStack({ postgresUrl: postgres.url, simulator: { config: 'test/fixtures/llm-sim-slow.yaml' }, env: { SQLSWEEP_LLM_CONCURRENCY: '2' } });
  });
  afterAll(async () => {
    await e2e?.stop();
    postgres?.destroy();
  });

  it('says once that it retries, follows the run again when Postgres is back, and exits 0 when it is done', async () => {
    const config = e2e.writeFile('blip.yaml', 'name: blip\ndataset: minibench\nsplit: dev\nitems: { limit: 10 }\nmodels: [sim-strong, sim-weak]\npipelines:\n  - pipeline: zero-shot\n');
    const cli = e2e.startSweep(config, ['--workers', '1', '--stall-seconds', '3']);
    await waitForStageResults(e2e.db, 'zero-shot.generate', 4, cli);
    postgres.stop();
    await new Promise((r) => setTimeout(r, 6_000));
    await postgres.startAgain();

    const result = await cli.finished;
    const output = `${result.stdout}\n${result.stderr}`;
    expect(output).not.toMatch(/ECONNREFUSED[^\n]*\n\s+at /); // no stack trace
    expect(output.match(/postgres unreachable \([^)]+\): retrying for up to \d+ s/g)).toHaveLength(1);
    expect(result.code).toBe(0);
    const runId = runIdOf(result.stdout);
    expect((await runRow(e2e.db, runId)).status).toBe('done');
    expect(await itemResultCounts(e2e.db, runId)).toEqual({ n: 20, distinct_items: 20, errored: 0 });
    expect(result.stdout.trimEnd().split('\n').pop()).toContain(`sqlsweep run --resume ${runId}`);
  });

  it('gives up on a Postgres that stays away after --outage-seconds, saying so and how to resume', async () => {
    const config = e2e.writeFile('gone.yaml', 'name: gone\ndataset: minibench\nsplit: dev\nitems: { limit: 2 }\nmodels: [sim-strong]\npipelines:\n  - pipeline: zero-shot\n');
    const cli = e2e.startSweep(config, ['--outage-seconds', '2', '--fresh-llm']); // no workers: the run waits
    const runId = await waitFor('the run to be created', async () => findRunId(cli.stdout));
    postgres.stop();
    try {
      const result = await cli.finished;
      expect(result.stdout).toMatch(/postgres unreachable \([^)]+\): retrying for up to 2 s/);
      expect(result.stderr).toMatch(/^sqlsweep: postgres unreachable for 2 s \([^)]+\): gave up waiting for it$/m);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stderr.trimEnd().split('\n').pop()).toContain(`sqlsweep run --resume ${runId}`);
      expect(result.code).toBe(1);
    } finally {
      await postgres.startAgain();
    }
  });
});
