/**
 * Redis behind Sentinel (a primary, one replica, three Sentinels: private servers on free ports) fails over in the
 * middle of a sweep. The workers, the CLI following run A and the orchestrator all reach Redis only through
 * REDIS_URL=redis+sentinel://…. The replica's link is cut, run B is created through the orchestrator's API (so every
 * job of B is acknowledged by the primary alone), and the primary is SIGKILLed: B's jobs are lost with it. Both runs
 * must finish with every item once, B's lost jobs queued again by the reconciler (no CLI follows B; the CLI's own stall
 * check for A is held off), and no step taken by hand. Prints the figures (stall, jobs lost, queued again).
 * Skips, saying why in one line, where redis-server or redis-cli is missing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryRows } from '@sqlsweep/db';
import { findRedisBinaries, REDIS_CONF, startPrivateSentinelGroup, type PrivateSentinelGroup } from '@sqlsweep/infra';
import { QueueClient, queueNames } from '@sqlsweep/queue';
import { startWorkers, waitFor, zeroShotSweep, type Proc } from '@sqlsweep/testing';
import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { startOrchestrator, type Orchestrator } from './support/orchestrator';
import { itemResultCounts, runRow, storedStageResults } from './support/stored-results';

jest.setTimeout(240_000);

const binaries = findRedisBinaries();
const unavailable = typeof binaries === 'string' ? binaries : undefined;
if (unavailable) console.log(`redis failover e2e skipped: ${unavailable}`);
const describeFailover = unavailable ? describe.skip : describe;

const token = 'failover-test-token-0123456789';

const jobStates = ['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed', 'waiting-children'] as const;

/** Every job of the sweep's queues on one data server, read directly from it (not through Sentinel): `<queue>/<id>` → state. */
async function jobsOn(port: number, prefix: string, queues = queueNames): Promise<Map<string, string>> {
  const client = new QueueClient(`redis://127.0.0.1:${port}`, prefix);
  try {
    const jobs = new Map<string, string>();
    for (const name of queues) {
      for (const state of jobStates) {
        for (const job of await client.queue(name).getJobs([state])) if (job?.id) jobs.set(`${name}/${job.id}`, state);
      }
    }
    return jobs;
  } finally {
    await client.close();
  }
}

async function completedOn(port: number, prefix: string): Promise<number> {
  const client = new QueueClient(`redis://127.0.0.1:${port}`, prefix);
  try {
    let n = 0;
    for (const name of queueNames) n += (await client.queue(name).getJobCounts('completed')).completed;
    return n;
  } finally {
    await client.close();
  }
}

/** A run's status, its item results (rows, distinct items, errored), stage results stored twice, and stage failures. */
async function accountOf(e2e: E2eStack, runId: string) {
  const [{ duplicated, failures }] = await queryRows<{ duplicated: number; failures: number }>(e2e.db)`
    SELECT (SELECT count(*) - count(DISTINCT stage_key) FROM stage_results)::int AS duplicated,
           (SELECT count(*) FROM stage_failures WHERE run_id = ${runId})::int AS failures`;
  return { status: (await runRow(e2e.db, runId)).status, ...(await itemResultCounts(e2e.db, runId)), duplicatedStageResults: duplicated, stageFailures: failures };
}

describeFailover('Redis failover through Sentinel mid-sweep', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-sentinel-'));
  let group: PrivateSentinelGroup;
  let e2e: E2eStack;
  let orchestrator: Orchestrator;
  const workers: Proc[] = [];
  const workerLines: string[] = [];

  beforeAll(async () => {
    const started = Date.now();
    group = await startPrivateSentinelGroup({ dir, binary: (binaries as { server: string }).server, confPath: REDIS_CONF, replicas: 1, sentinels: 3, downAfterMs: 5_000 });
    const env = { REDIS_URL: group.url, SQLSWEEP_RECONCILE_MS: '1000', SQLSWEEP_LLM_CONCURRENCY: '2', SQLSWEEP_JOB_LOCK_MS: '5000' };
    const groupUp = Date.now();
    e2e = await startE2eStack({ workers: 0, simulator: { config: 'test/fixtures/llm-sim-slow.yaml' }, env });
    const stackUp = Date.now();
    workers.push(...startWorkers(2, { ...e2e.env, LOG_LEVEL: 'info' }, (line) => workerLines.push(line)));
    orchestrator = await startOrchestrator(e2e, token, env);
    console.log(`redis failover e2e: Sentinel group up in ${(groupUp - started) / 1000} s, stack in ${(stackUp - groupUp) / 1000} s, orchestrator in ${(Date.now() - stackUp) / 1000} s`);
  });
  afterAll(async () => {
    try {
      await Promise.all(workers.map((w) => w.stop()));
      // Closing waits for Redis, which a failed failover leaves without a primary.
      await Promise.race([orchestrator?.app.close(), new Promise((r) => setTimeout(r, 10_000).unref())]);
      await e2e?.stop();
    } finally {
      await group?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('finishes both sweeps on the promoted replica, every item once; the run whose jobs were all lost is queued again by the reconciler', async () => {
    const started = Date.now();
    // Run A: started by the CLI, which follows it through the failover. Its own stall check (re-planning after 15 s
    // by default) is held off: recovering lost jobs is the reconciler's.
    const cli = e2e.startSweep(e2e.writeFile('failover-a.yaml', zeroShotSweep('failover-a', 24, 0)), ['--stall-seconds', '600']);
    await waitFor('run A to be under way', async () => {
      if (cli.exited) throw new Error(`sqlsweep exited before the failover:\n${cli.stdout}\n${cli.stderr}`);
      return (await storedStageResults(e2e.db, 'zero-shot.generate')) >= 4 ? true : undefined;
    }, 90_000);

    // The window: the replica's link is cut, and the primary goes on acknowledging what it no longer passes on. Run B
    // is created through the orchestrator's API inside it, so every job of B is acknowledged by the old primary only:
    // nothing but a re-plan from Postgres can add B's first jobs again.
    const old = await group.cutReplication();
    const cutAt = Date.now();
    const created = await fetch(`${orchestrator.url}/api/runs`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ config: zeroShotSweep('failover-b', 12, 0.5) }),
    });
    expect(created.status).toBe(201);
    const runB = ((await created.json()) as { runId: string }).runId;
    // Only the LLM queue is read: the window must stay well under ten times the Sentinels' down-after time (5 s here),
    // or the replica is taken for stale and not promoted.
    const onOldPrimary = await jobsOn(old.port, e2e.prefix, ['stage-llm']);
    const killedAt = Date.now();
    group.kill(old);
    const promoted = await group.waitForFailover(old);
    const promotedAt = Date.now();
    const onPromoted = await jobsOn(promoted.port, e2e.prefix, ['stage-llm']);
    const lost = [...onOldPrimary].filter(([id]) => !onPromoted.has(id));
    const completedAtPromotion = await completedOn(promoted.port, e2e.prefix);
    const resumed = await waitFor('a job to complete on the promoted primary', async () =>
      ((await completedOn(promoted.port, e2e.prefix)) > completedAtPromotion ? Date.now() : undefined), 60_000, 100);

    const result = await cli.finished;
    expect(result.code).toBe(0);
    const runA = runIdOf(result.stdout);
    expect(result.stdout).not.toMatch(/no progress for/);
    const bDone = await waitFor('run B to finish', async () => ((await runRow(e2e.db, runB)).status === 'running' ? undefined : Date.now()), 90_000);
    expect(await accountOf(e2e, runA)).toEqual({ status: 'done', n: 48, distinct_items: 48, errored: 0, duplicatedStageResults: 0, stageFailures: 0 });
    expect(await accountOf(e2e, runB)).toEqual({ status: 'done', n: 24, distinct_items: 24, errored: 0, duplicatedStageResults: 0, stageFailures: 0 });

    // B's LLM jobs were lost with the old primary; they are back on the promoted one under their own ids, queued again
    // by a reconciler pass (B has no CLI following it, and no process was restarted).
    const llmJobsOfB = async (port: number) => {
      const client = new QueueClient(`redis://127.0.0.1:${port}`, e2e.prefix);
      try {
        return (await client.queue('stage-llm').getJobs([...jobStates])).filter((j) => j?.data?.runId === runB).map((j) => `stage-llm/${j.id}`);
      } finally {
        await client.close();
      }
    };
    const afterwards = await jobsOn(promoted.port, e2e.prefix);
    const bQueuedAgain = await llmJobsOfB(promoted.port);
    const bLostIds = bQueuedAgain.filter((id) => onOldPrimary.has(id) && !onPromoted.has(id));
    // (A job of B that a worker finished inside the window has its result in Postgres: it is not queued again.)
    expect(bQueuedAgain.length).toBeGreaterThan(16);
    expect(bLostIds).toEqual(bQueuedAgain);
    for (const w of workers) expect(w.child.exitCode).toBeNull();
    const reconcilerLines = workerLines.filter((l) => l.includes('reconciler: the run had not moved'));

    // The orchestrator reads the queues from the promoted primary too.
    const metrics = await (await fetch(`${orchestrator.url}/metrics`)).text();
    const completedMetric = queueNames.reduce((n, q) => n + Number(new RegExp(`sqlsweep_queue_jobs\\{queue="${q}",state="completed"\\} (\\d+)`).exec(metrics)?.[1] ?? NaN), 0);
    expect(completedMetric).toBe(await completedOn(promoted.port, e2e.prefix));

    console.log(`redis failover e2e: ${JSON.stringify({
      windowSeconds: (killedAt - cutAt) / 1000,
      promotedAfterSeconds: (promotedAt - killedAt) / 1000,
      stallSeconds: (resumed - killedAt) / 1000,
      llmJobsOnOldPrimary: onOldPrimary.size,
      llmJobsLost: lost.length,
      llmJobsLostByState: lost.reduce<Record<string, number>>((by, [, state]) => ({ ...by, [state]: (by[state] ?? 0) + 1 }), {}),
      runBLlmJobsLostAndQueuedAgain: bLostIds.length,
      runBFinishedAfterKillSeconds: (bDone - killedAt) / 1000,
      reconcilerRePlansLoggedByWorkers: reconcilerLines.length,
      jobsOnPromotedAtEnd: afterwards.size,
      testSeconds: (Date.now() - started) / 1000,
      manualSteps: 0,
    })}`);
  });
});
