/**
 * `npm run bench -- matrix [--variants 5 --items 20000 --samples 30]`: the items × variants matrix endpoint
 * (GET /api/runs/<id>/matrix) on a run of 100,000 item results (5 variants × 20,000 items by default), seeded by SQL
 * (bench/scale's seedSyntheticRun and fillRunResults), timed over HTTP per mode and page; writes
 * bench/results/matrix.json. On the benchmark's own Redis and Postgres (bench/private-servers.ts), removed afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase } from '@sqlsweep/testing';
import { startPrivateServers, type PrivateServers } from '../private-servers';
import { fillRunResults, seedSyntheticRun, startOrchestrator } from '../scale/api-latency';

const repoRoot = join(__dirname, '..', '..');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
  const variants = arg('--variants', 5);
  const items = arg('--items', 20_000);
  const samples = arg('--samples', 30);
  const servers = await startPrivateServers({ name: 'matrix' });
  try {
    await measure(servers, { variants, items, samples });
  } finally {
    await servers.stop();
  }
}

async function measure(servers: PrivateServers & { postgresUrl: string }, { variants, items, samples }: { variants: number; items: number; samples: number }): Promise<void> {
  const database = await createTestDatabase(servers.postgresUrl);
  try {
    const c = new Client({ connectionString: database.url });
    await c.connect();
    const seeded = performance.now();
    const runId = await seedSyntheticRun(c, { variants, items, stagesPerItem: 3 });
    const filled = await fillRunResults(c, runId, variants * items);
    await c.query('VACUUM ANALYZE item_results');
    await c.end();
    const seedMs = performance.now() - seeded;
    process.stderr.write(`matrix bench: run ${runId}, ${filled.itemResults} item results in ${(seedMs / 1000).toFixed(1)} s\n`);

    const token = randomBytes(16).toString('hex');
    const api = await startOrchestrator({
      DATABASE_URL: database.url, REDIS_URL: servers.redisUrl, SQLSWEEP_QUEUE_PREFIX: `matrix_${randomBytes(4).toString('hex')}`,
      SQLSWEEP_API_TOKEN: token, PORT: '0', LOG_LEVEL: 'warn', SQLSWEEP_DATA_DIR: mkdtempSync(join(tmpdir(), 'matrix-bench-')),
    }, (line) => process.stderr.write(`${line}\n`));
    const url = api.url;
    try {
      const time = async (path: string) => {
        const t = performance.now();
        const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        const body = (await res.json()) as { total: number; rows: unknown[] };
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
        return { ms: performance.now() - t, total: body.total, rows: body.rows.length };
      };
      const modes: Record<string, unknown> = {};
      for (const mode of ['all', 'failures', 'sql-errors', 'disagree']) {
        const cold = await time(`/api/runs/${runId}/matrix?mode=${mode}`);
        const timings: number[] = [];
        let total = cold.total;
        for (let i = 0; i < samples; i++) {
          // Pages spread over the whole run (the deep pages are the costly ones with OFFSET).
          const offset = Math.floor((i / samples) * Math.max(0, total - 50));
          const r = await time(`/api/runs/${runId}/matrix?mode=${mode}&limit=50&offset=${offset}`);
          total = r.total;
          timings.push(r.ms);
        }
        const s = timings.sort((a, b) => a - b);
        const r1 = (v: number) => Math.round(v * 10) / 10;
        modes[mode] = { itemsInMode: total, samples, coldMs: r1(cold.ms), p50Ms: r1(percentile(s, 50)), p95Ms: r1(percentile(s, 95)), maxMs: r1(s[s.length - 1] ?? 0) };
        process.stderr.write(`matrix bench: ${mode} ${JSON.stringify(modes[mode])}\n`);
      }
      const out = {
        benchmark: 'matrix',
        machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: loadavg().map((l) => Math.round(l * 100) / 100) },
        servers: servers.description,
        run: { seededBy: 'seedSyntheticRun + fillRunResults (bench/scale/api-latency.ts)', variants, items, itemResults: filled.itemResults, seedMs: Math.round(seedMs) },
        modes,
        note: 'GET /api/runs/<id>/matrix (50 items a page) timed over HTTP against the orchestrator in its own process, one request at a time, pages spread over the whole mode after one untimed warm-up (coldMs). The page is an aggregate of the run\'s item results per item (the primary key\'s run_id prefix), the counts of all four modes, and the page\'s cells by primary key. Synthetic verdicts: every third item result wrong, none a SQL error.',
        measuredAt: new Date().toISOString(),
      };
      writeFileSync(join(repoRoot, 'bench', 'results', 'matrix.json'), `${JSON.stringify(out, null, 2)}\n`);
      console.log(JSON.stringify(out, null, 2));
    } finally {
      await api.stop();
    }
  } finally {
    await database.drop();
  }
}

main().catch((e: Error) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
