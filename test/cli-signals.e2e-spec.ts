import { readdirSync, readFileSync } from 'node:fs';
import { findRunId } from './support/cli-output';
import { waitFor, type RunningCli } from '@sqlsweep/testing';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { storedStageResults, waitForStageResults } from './support/stored-results';

jest.setTimeout(300_000);

/** Alive and not a zombie (an exited child its new parent has not reaped yet is gone for our purpose). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Every local worker a test saw, so that a failing test still leaves none behind. */
const started: number[] = [];

/** The worker processes `sqlsweep run` started: its children running apps/worker, found in /proc. */
async function localWorkerPids(cli: RunningCli, count: number): Promise<number[]> {
  const pids = await waitFor('the local workers to start', async () => {
    if (cli.exited) throw new Error(`sqlsweep exited early:\n${cli.stdout}\n${cli.stderr}`);
    const pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
      try {
        const ppid = Number(/^\d+ \(.*\) \S (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1]);
        return ppid === cli.child.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('apps/worker/src/main.ts');
      } catch {
        return false; // gone meanwhile
      }
    });
    return pids.length === count ? pids : undefined;
  });
  started.push(...pids);
  return pids;
}

/**
 * `sqlsweep run` starts worker processes of its own when none is connected. However the command ends, they must end
 * with it: a SIGTERM used to kill the command and leave them serving the queues as orphans.
 */
describe('sqlsweep run with local workers, stopped from outside', () => {
  let e2e: E2eStack;
  const config = () => e2e.writeFile('signals.yaml', 'name: signals\ndataset: minibench\nsplit: dev\nitems: { limit: 20 }\nmodels: [sim-strong, sim-weak]\npipelines:\n  - pipeline: zero-shot\n');

  beforeAll(async () => {
    e2e = await startE2eStack({ simulator: { config: 'test/fixtures/llm-sim-slow.yaml' }, env: { SQLSWEEP_LLM_CONCURRENCY: '2' } });
  });
  afterAll(async () => {
    for (const pid of started.filter(isRunning)) process.kill(pid, 'SIGKILL');
    await e2e?.stop();
  });

  it('on SIGTERM stops its workers within seconds and names the command to resume', async () => {
    const cli = e2e.startSweep(config(), ['--workers', '2']);
    const pids = await localWorkerPids(cli, 2);
    await waitForStageResults(e2e.db, 'zero-shot.generate', 2, cli);
    const runId = findRunId(cli.stdout)!;

    cli.child.kill('SIGTERM');
    const result = await cli.finished;
    expect(result.stderr).toContain('sqlsweep: interrupted by SIGTERM');
    expect(result.stderr.trimEnd().split('\n').pop()).toContain(`sqlsweep run --resume ${runId}`);
    expect(result.code).toBe(143);
    expect(result.stdout).not.toMatch(/Leaderboard/); // an interrupted command does not go on as if the run had ended
    await waitFor('the local workers to exit', async () => (pids.some(isRunning) ? undefined : true), 5_000);
  });

  it('killed with SIGKILL, leaves workers that notice and exit', async () => {
    const generatedBefore = await storedStageResults(e2e.db, 'zero-shot.generate');
    const cli = e2e.startSweep(config(), ['--workers', '1', '--fresh-llm']);
    const pids = await localWorkerPids(cli, 1);
    await waitForStageResults(e2e.db, 'zero-shot.generate', generatedBefore + 1, cli);

    cli.child.kill('SIGKILL');
    await cli.finished;
    // They finish the jobs they hold first (a few LLM calls of ~0.3 s), as on SIGTERM.
    await waitFor('the orphaned workers to exit', async () => (pids.some(isRunning) ? undefined : true), 15_000);
  });
});
