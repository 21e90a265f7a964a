/**
 * Workers on two "hosts" (network namespaces, each with its own address, 1 ms from the services each way) run
 * sweeps to the end; then one host is cut off mid-sweep (every packet dropped): its jobs are taken over once their
 * locks lapse, nothing is lost or stored twice, and when the partition heals its late writes change nothing.
 * Skips, saying why in one line, where namespaces cannot be made (not root, no iproute2).
 */
import { replicaPathOf } from '@sqlsweep/datasets';
import { queryRows } from '@sqlsweep/db';
import { HostNetwork, netnsUnavailableReason, WorkerHosts } from '@sqlsweep/infra';
import { accountRun, callsClaimedBy, storedFingerprint, waitFor, zeroShotSweep } from '@sqlsweep/testing';
import { runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { birdCorrect } from './support/independent-ex';

jest.setTimeout(120_000);

const unavailable = netnsUnavailableReason();
if (unavailable) console.log(`hosts e2e skipped: ${unavailable}`);
const describeHosts = unavailable ? describe.skip : describe;

describeHosts('worker hosts in network namespaces', () => {
  let e2e: E2eStack;
  let net: HostNetwork;
  let hosts: WorkerHosts;

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 0, simulator: { config: 'test/fixtures/llm-sim-slow.yaml' } });
    net = HostNetwork.create({ hosts: 2, delayMs: 1 });
    hosts = await WorkerHosts.start(net, { redisUrl: e2e.env.REDIS_URL!, databaseUrl: e2e.databaseUrl, simUrl: e2e.sim.url });
    // Short locks: a cut-off host's jobs come back within seconds.
    const env = { ...e2e.env, SQLSWEEP_LLM_CONCURRENCY: '4', SQLSWEEP_JOB_LOCK_MS: '2000', SQLSWEEP_RECONCILE_MS: '2000' };
    for (const h of net.hosts) hosts.startWorker(h.index, env);
    await Promise.all(hosts.workers.map((w) => w.started));
  });
  afterAll(async () => {
    await hosts?.stop(3_000);
    net?.destroy();
    await e2e?.stop();
  });

  it('runs a sweep to the end on two hosts, every item once, its EX confirmed independently', async () => {
    const result = await e2e.runSweep(e2e.writeFile('hosts-a.yaml', zeroShotSweep('hosts-a', 30, 0)), 90_000);
    expect(result.code).toBe(0);
    const runId = runIdOf(result.stdout);
    const account = await accountRun(e2e.db, runId);
    expect(account).toMatchObject({ status: 'done', itemsPlanned: 60, itemsWithResult: 60, itemsErrored: 0, duplicatedRows: 0, stageFailures: 0 });
    const results = await queryRows<{ correct: boolean; predicted_sql: string | null; gold_sql: string; checksum: string }>(e2e.db)`
      SELECT r.correct, r.predicted_sql, i.gold_sql, d.checksum FROM item_results r
      JOIN runs ON runs.id = r.run_id
      JOIN dataset_items i ON i.version_id = runs.dataset_version_id AND i.item_id = r.item_id
      JOIN dataset_databases d ON d.version_id = i.version_id AND d.db_id = i.db_id
      WHERE r.run_id = ${runId}`;
    expect(results).toHaveLength(60);
    expect(results.filter((r) => birdCorrect(replicaPathOf(e2e.dataDir, r.checksum), r.gold_sql, r.predicted_sql) !== r.correct)).toEqual([]);
    // Both hosts did work: each logged stage jobs it finished.
    for (const w of hosts.workers) expect(w.lines.filter((l) => l.includes('"stage done"')).length).toBeGreaterThan(0);
  });

  it('takes over a cut-off host\'s jobs with nothing lost or stored twice, and its late writes change nothing', async () => {
    const [victim, survivor] = hosts.workers;
    const cli = e2e.startSweep(e2e.writeFile('hosts-b.yaml', zeroShotSweep('hosts-b', 30, 0.5)));
    // Cut it off while it has LLM calls in flight.
    await waitFor('the victim host to hold LLM calls', async () => {
      if (cli.exited) throw new Error(`sqlsweep exited before the partition:\n${cli.stdout}\n${cli.stderr}`);
      return (await callsClaimedBy(e2e.db, victim.child.pid!)) > 0 ? true : undefined;
    }, 60_000);
    net.partition(victim.host.index);
    const survivorLinesAtCut = survivor.lines.length;

    const result = await cli.finished;
    expect(result.code).toBe(0);
    const runId = runIdOf(result.stdout);
    const account = await accountRun(e2e.db, runId);
    expect(account).toMatchObject({ status: 'done', itemsPlanned: 60, itemsWithResult: 60, itemsErrored: 0, duplicatedRows: 0 });
    expect(survivor.lines.length).toBeGreaterThan(survivorLinesAtCut);

    const before = (await storedFingerprint(e2e.db, runId)).hash;
    const storedAtHeal = new Set((await queryRows<{ stage_key: string }>(e2e.db)`SELECT stage_key FROM stage_results`).map((r) => r.stage_key));
    const victimLinesAtHeal = victim.lines.length;
    net.heal(victim.host.index);
    // The stale host's connections come back (TCP retransmits) and its jobs end: late writes, lost locks.
    await waitFor('the healed host to act again', async () => (victim.lines.length > victimLinesAtHeal ? true : undefined), 20_000).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 2_000));
    await victim.stop('SIGTERM', 5_000);
    // Whatever stage job it finished late inserted nothing then. A job may log `inserted` only for a write that had
    // reached Postgres before the cut, its answer held up by the partition: that row was there before the heal.
    const late = victim.lines.slice(victimLinesAtHeal).filter((l) => l.includes('"stage done"'));
    const insertedLate = late.filter((l) => l.includes('"inserted":true')).map((l) => (JSON.parse(l) as { stageKey: string }).stageKey);
    expect(insertedLate.filter((key) => !storedAtHeal.has(key))).toEqual([]);
    expect((await storedFingerprint(e2e.db, runId)).hash).toEqual(before);
    expect((await accountRun(e2e.db, runId)).duplicatedRows).toBe(0);
  });
});
