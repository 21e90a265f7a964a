// Benchmark of the SQL sandbox on the Spider sample: EX comparisons per second with cold and warm gold caches
// (297 items x both prediction files), the latency of killing a runaway query and replacing its process, and how
// long quick queries wait while runaways hold every child.
// Run: node -r @swc-node/register bench/sandbox/run.ts   ->   bench/results/sandbox.json
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { hashDatasetFiles } from '@sqlsweep/datasets';
import { GoldCache, SandboxPool, evaluateExecution, readGoldFile, readSpiderPredictions, type EvalItem } from '@sqlsweep/sql-sandbox';

const ROOT = resolve(__dirname, '../..');
const SPIDER = resolve(ROOT, 'test/fixtures/benchmark-samples/spider-sample');
const WARM_ROUNDS = 5;
const KILLS = 20;
const KILL_DEADLINE_MS = 200;
const BEHIND_DEADLINE_MS = 3_000;
const BEHIND_QUICK = 200;
/** Each one a different statement: the pool runs identical ones once (and remembers their timeout). */
const runaway = (k: number): string => `WITH RECURSIVE c(x) AS (SELECT ${k} UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`;

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (x: number, digits = 1): number => Number(x.toFixed(digits));

async function main(): Promise<void> {
  // The machine is shared: the load when the run starts says how much of it the figures had.
  const loadAtStart = loadavg().map((l) => round(l, 2));
  const versionHash = await hashDatasetFiles(SPIDER);
  const gold = readGoldFile(join(SPIDER, 'dev_gold.sql'));
  const predictionFiles = readdirSync(join(SPIDER, 'predictions')).sort();
  const runs = predictionFiles.map((file) => {
    const preds = readSpiderPredictions(join(SPIDER, 'predictions', file));
    return gold.map<EvalItem>((g, i) => ({
      dbPath: join(SPIDER, 'database', g.dbId, `${g.dbId}.sqlite`),
      goldSql: g.sql,
      predSql: preds[i],
      itemId: `dev-${i}`,
    }));
  });
  const comparisons = runs.reduce((n, r) => n + r.length, 0);

  const pool = new SandboxPool();
  await pool.ready();
  const cache = new GoldCache();
  const pass = async (): Promise<{ ms: number; correct: number[] }> => {
    const start = process.hrtime.bigint();
    const correct: number[] = [];
    for (const items of runs) {
      const verdicts = await evaluateExecution({ semantics: 'spider', pool, items, goldCache: cache, versionHash });
      correct.push(verdicts.filter((v) => v.correct).length);
    }
    return { ms: Number(process.hrtime.bigint() - start) / 1e6, correct };
  };
  const cold = await pass();
  const warmTimes: number[] = [];
  for (let r = 0; r < WARM_ROUNDS; r++) warmTimes.push((await pass()).ms);
  const warmMs = percentile(warmTimes, 50);
  // Warm rounds run the same predictions again: the pool answers those from its memo of recent results.
  const predictionMemoHits = pool.memoHits;

  const killPool = new SandboxPool({ size: cpus().length, deadlineMs: KILL_DEADLINE_MS });
  await killPool.ready();
  const killWall: number[] = [];
  // Kills spaced out (the standby is up again before the next one), as a runaway now and then in a sweep.
  for (let k = 0; k < KILLS; k++) {
    const start = process.hrtime.bigint();
    const r = await killPool.execute({ dbPath: runs[0][0].dbPath, sql: runaway(k) });
    if (r.status !== 'timeout') throw new Error(`runaway query was not killed: ${JSON.stringify(r)}`);
    killWall.push(Number(process.hrtime.bigint() - start) / 1e6);
    await killPool.ready();
  }

  // A burst of runaways at once uses up the standby: the later replacements wait for a fresh process.
  const spacedReplace = [...killPool.replaceLatenciesMs];
  const spacedKill = [...killPool.killLatenciesMs];
  await killPool.reaped();
  const spacedReap = [...killPool.reapLatenciesMs];
  const burstFrom = killPool.replaceLatenciesMs.length;
  const burstSize = cpus().length + 2;
  const burst = await Promise.all(
    Array.from({ length: burstSize }, (_, b) => killPool.execute({ dbPath: runs[0][0].dbPath, sql: runaway(KILLS + b) })),
  );
  if (burst.some((r) => r.status !== 'timeout')) throw new Error('a runaway in the burst was not killed');
  await killPool.ready();
  const burstReplace = killPool.replaceLatenciesMs.slice(burstFrom);

  // Runaways (twice as many as children) hold every child; quick queries arrive every 10 ms meanwhile.
  const behindPool = new SandboxPool({ size: cpus().length });
  await behindPool.ready();
  const behindStart = process.hrtime.bigint();
  const held = Array.from({ length: cpus().length * 2 }, (_, k) =>
    behindPool.execute({ dbPath: runs[0][0].dbPath, sql: runaway(1000 + k), deadlineMs: BEHIND_DEADLINE_MS }));
  const quickWall = await Promise.all(Array.from({ length: BEHIND_QUICK }, (_, i) => new Promise<number>((done, fail) => {
    setTimeout(() => {
      const start = process.hrtime.bigint();
      behindPool.execute({ dbPath: runs[0][0].dbPath, sql: `SELECT ${i}` })
        .then((r) => (r.status === 'ok' ? done(Number(process.hrtime.bigint() - start) / 1e6) : fail(new Error(JSON.stringify(r)))), fail);
    }, i * 10);
  })));
  const quickDoneMs = Number(process.hrtime.bigint() - behindStart) / 1e6;
  if ((await Promise.all(held)).some((r) => r.status !== 'timeout')) throw new Error('a runaway held no child until its deadline');

  const result = {
    benchmark: 'sandbox',
    date: new Date().toISOString(),
    machine: { cpuModel: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGb: round(totalmem() / 2 ** 30), loadAverageAtStart: loadAtStart },
    dataset: { name: 'spider-sample', versionHash, items: gold.length, predictionFiles, comparisons },
    poolSize: cpus().length,
    accuracy: Object.fromEntries(predictionFiles.map((f, i) => [f, round(cold.correct[i] / gold.length, 4)])),
    coldGoldCache: { ms: round(cold.ms), comparisonsPerSecond: round((comparisons / cold.ms) * 1000), goldExecutions: gold.length },
    warmGoldCache: {
      rounds: WARM_ROUNDS,
      msMedian: round(warmMs),
      comparisonsPerSecond: round((comparisons / warmMs) * 1000),
      msAllRounds: warmTimes.map((t) => round(t)),
      predictionMemoHits,
    },
    killAndReplace: {
      runs: KILLS,
      deadlineMs: KILL_DEADLINE_MS,
      verdictAfterDeadlineMs: { p50: round(percentile(spacedKill, 50), 2), p99: round(percentile(spacedKill, 99), 2) },
      replacementReadyMs: { p50: round(percentile(spacedReplace, 50)), p99: round(percentile(spacedReplace, 99)) },
      sigkillToReapedMs: { p50: round(percentile(spacedReap, 50)), p99: round(percentile(spacedReap, 99)) },
      timeoutVerdictWallMs: { p50: round(percentile(killWall, 50)), p99: round(percentile(killWall, 99)) },
      burst: { runaways: burstSize, replacementReadyMs: { p50: round(percentile(burstReplace, 50)), max: round(Math.max(...burstReplace)) } },
    },
    quickBehindRunaways: {
      runaways: cpus().length * 2,
      runawayDeadlineMs: BEHIND_DEADLINE_MS,
      quickQueries: BEHIND_QUICK,
      quickWallMs: { p50: round(percentile(quickWall, 50)), p99: round(percentile(quickWall, 99)), max: round(Math.max(...quickWall)) },
      allQuickDoneMs: round(quickDoneMs),
      extraChildrenPeak: behindPool.peakExtras,
    },
  };
  await Promise.all([pool.close(), killPool.close(), behindPool.close()]);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/sandbox.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
