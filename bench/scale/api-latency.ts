/**
 * API latencies at scale (issue 17, "Queries at scale"): on one planned run with about 1,000,000 `run_stages`, fills
 * item results (100,000 by default) and the stage results they rest on, straight in SQL, then measures p50/p95 of
 * the API's run status, leaderboard, item list page, item detail and comparison, and the wall time of
 * `sqlsweep status <run>`; and reports the storage per row of the tables a sweep grows.
 *
 * `measureApiLatencies({ databaseUrl, redisUrl, runId })` is what bench/scale/run.ts calls on its planned run.
 * `seedSyntheticRun` makes such a run without planning (rows written by SQL) for developing this part alone:
 * `node -r @swc-node/register bench/scale/api-latency.ts [--variants 5 --items 20000 --stages 10] [--write]` (on its own
 * Redis and Postgres, bench/private-servers.ts, removed afterwards; --database-url URL [--run ID] [--keep]: that
 * database instead of its own Postgres; --write: bench/results/scale-api-latency.json). `--cli-only [--done] [--bin PATH ...]
 * [--rounds N]`: only the `sqlsweep` processes (measureCli), e.g. before/after a change on a smaller seeded run:
 * `... api-latency.ts --cli-only --items 2000 --bin /other/checkout/bin/sqlsweep --bin bin/sqlsweep --rounds 2`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';

const repoRoot = join(__dirname, '..', '..');

export interface ApiLatencyOptions {
  /** Postgres URL of the (migrated) database that holds the run. */
  databaseUrl: string;
  /** Redis the orchestrator connects to (nothing is enqueued; its queue prefix is a fresh one). */
  redisUrl: string;
  /** The planned run: its stages get results and its (variant, item) pairs item results, in item order across variants. */
  runId: string;
  /** Item results the run holds when measured (default 100,000; fewer when the run plans fewer pairs). */
  itemResults?: number;
  /** Timed requests per endpoint, after one untimed warm-up (reported apart as `coldMs`). Default 30. */
  samples?: number;
  /** Timed `sqlsweep status <run>` processes. Default 5. */
  statusRuns?: number;
  /** Progress lines (default: to stderr). */
  log?: (line: string) => void;
}

export interface LatencyFigures { samples: number; coldMs: number; p50Ms: number; p95Ms: number; maxMs: number }

export interface TableStorage { rows: number; bytes: number; bytesPerRow: number }

export interface ApiLatencyResult {
  runStages: number;
  itemResults: number;
  /** Stage results whose key the run plans. */
  stageResults: number;
  /** Time to write the item and stage results by SQL. */
  fillMs: number;
  endpoints: Record<'runStatus' | 'leaderboard' | 'itemsPage' | 'itemDetail' | 'compare', LatencyFigures>;
  /** `sqlsweep status <run>`: wall time of the whole process, start-up included. */
  status: LatencyFigures;
  /** `sqlsweep --help`: the CLI's start-up alone (Node, the compiled TypeScript read from bin/ts-hook.js's cache, every command's module and libraries), timed the same way. */
  cliStartup: LatencyFigures;
  /** pg_total_relation_size (heap, TOAST and indexes) over the row count. */
  storage: { runStages: TableStorage; stageResults: TableStorage; itemResults: TableStorage };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function figures(cold: number, timings: number[]): LatencyFigures {
  const s = [...timings].sort((a, b) => a - b);
  const r = (v: number) => Math.round(v * 10) / 10;
  return { samples: s.length, coldMs: r(cold), p50Ms: r(percentile(s, 50)), p95Ms: r(percentile(s, 95)), maxMs: r(s[s.length - 1] ?? 0) };
}

async function withClient<T>(url: string, f: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}

/**
 * Gives the first `target` (variant, item) pairs of the run (items in key order, each under every variant, so
 * variants can be compared on shared items) a result for every planned stage and an item result, and the stages
 * outside any such pair (a training set's) a result too, so that only the pairs left out have work left when the
 * orchestrator re-checks the run as it starts. Deterministic: correctness and costs derive from a hash of the key.
 * Existing rows are kept.
 */
export async function fillRunResults(c: Client, runId: string, target: number): Promise<{ itemResults: number; stageResults: number }> {
  await c.query('DROP TABLE IF EXISTS pg_temp.filled_pairs');
  await c.query(`CREATE TEMP TABLE filled_pairs AS
    SELECT variant_id, item_id FROM run_stages WHERE run_id = $1 AND is_final ORDER BY item_id, variant_id LIMIT $2`, [runId, target]);
  await c.query('CREATE INDEX ON pg_temp.filled_pairs (variant_id, item_id)');
  await c.query('ANALYZE pg_temp.filled_pairs');
  // One result per key (keys are shared between variants); the final stage's output holds the verdict.
  await c.query(`
    INSERT INTO stage_results (stage_key, stage, output, simulated, input_tokens, output_tokens, cost_usd, latency_ms, run_id, variant_id, machine)
    SELECT DISTINCT ON (rs.stage_key) rs.stage_key, rs.stage,
      CASE WHEN rs.is_final THEN jsonb_build_object('correct', h % 3 <> 0, 'errored', false, 'reason', CASE WHEN h % 3 <> 0 THEN 'match' ELSE 'result differs' END,
             'predictedSql', 'SELECT 1', 'scorer', 'spider-ex@1', 'parseFailed', false, 'metrics', jsonb_build_object('schemaRecall', (h % 100) / 100.0))
           ELSE jsonb_build_object('text', repeat('x', 200 + h % 400)) END,
      true, CASE WHEN rs.role = 'llm' THEN 500 + h % 1500 ELSE 0 END, CASE WHEN rs.role = 'llm' THEN 50 + h % 200 ELSE 0 END,
      CASE WHEN rs.role = 'llm' THEN 0.0001 * (h % 50) ELSE 0 END, h % 900, rs.run_id, rs.variant_id, 'bench-scale'
    FROM run_stages rs LEFT JOIN pg_temp.filled_pairs p ON p.variant_id = rs.variant_id AND p.item_id = rs.item_id,
      LATERAL (SELECT abs(hashtext(rs.stage_key)) AS h) hk
    WHERE rs.run_id = $1
      -- the chosen pairs' stages, and the stages of no (variant, item) pair with a final stage (a training set's)
      AND (p.item_id IS NOT NULL OR NOT EXISTS (
        SELECT 1 FROM run_stages f WHERE f.run_id = rs.run_id AND f.variant_id = rs.variant_id AND f.item_id = rs.item_id AND f.is_final))
    ON CONFLICT (stage_key) DO NOTHING`, [runId]);
  await c.query(`
    INSERT INTO item_results (run_id, variant_id, item_id, final_stage_key, correct, errored, reason, predicted_sql, difficulty,
      input_tokens, output_tokens, cost_usd, latency_ms, simulated, metrics, scorer, parse_failed)
    SELECT rs.run_id, rs.variant_id, rs.item_id, rs.stage_key, (sr.output->>'correct')::boolean, false, sr.output->>'reason', 'SELECT 1',
      di.difficulty, 2000, 300, 0.002, 1500, true, sr.output->'metrics', 'spider-ex@1', false
    FROM run_stages rs JOIN pg_temp.filled_pairs p ON p.variant_id = rs.variant_id AND p.item_id = rs.item_id
      JOIN runs r ON r.id = rs.run_id
      JOIN stage_results sr ON sr.stage_key = rs.stage_key
      LEFT JOIN dataset_items di ON di.version_id = r.dataset_version_id AND di.item_id = rs.item_id
    WHERE rs.run_id = $1 AND rs.is_final
    ON CONFLICT DO NOTHING`, [runId]);
  // As the statement that writes item results in a sweep counts them on their run.
  await c.query('UPDATE runs SET closed_items = (SELECT count(*) FROM item_results WHERE run_id = $1) WHERE id = $1', [runId]);
  await c.query('ANALYZE stage_results');
  await c.query('ANALYZE item_results');
  const { rows: [n] } = await c.query<{ items: number; stages: number }>(`
    SELECT (SELECT count(*)::int FROM item_results WHERE run_id = $1) AS items,
      (SELECT count(*)::int FROM stage_results sr WHERE sr.stage_key IN (SELECT stage_key FROM run_stages WHERE run_id = $1)) AS stages`, [runId]);
  return { itemResults: n!.items, stageResults: n!.stages };
}

async function tableStorage(c: Client, table: string, where = ''): Promise<TableStorage> {
  const { rows: [r] } = await c.query<{ rows: string; bytes: string }>(
    `SELECT (SELECT count(*) FROM ${table} ${where}) AS rows, pg_total_relation_size('${table}') AS bytes`);
  const rows = Number(r!.rows);
  const bytes = Number(r!.bytes);
  return { rows, bytes, bytesPerRow: rows > 0 ? Math.round(bytes / rows) : 0 };
}

export interface ApiProcess { url: string; stop(): Promise<void> }

export function startOrchestrator(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<ApiProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/orchestrator/src/main.ts'], {
    cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => { clearTimeout(t); resolve(); });
    child.kill('SIGTERM');
  });
  createInterface({ input: child.stderr! }).on('line', (l) => log(`orchestrator: ${l}`));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { void stop(); reject(new Error('the orchestrator did not start listening within 90 s')); }, 90_000);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the orchestrator exited (${code}) before listening`)); });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /"orchestrator listening".*:(\d+)"/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${m[1]}`, stop });
      }
    });
  });
}

async function timeGet(url: string, token: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
  return ms;
}

async function measure(urls: () => string, token: string, samples: number): Promise<LatencyFigures> {
  const cold = await timeGet(urls(), token);
  const timings: number[] = [];
  for (let i = 0; i < samples; i++) timings.push(await timeGet(urls(), token));
  return figures(cold, timings);
}

function runCli(env: NodeJS.ProcessEnv, args: string[], bin = join(repoRoot, 'bin', 'sqlsweep')): Promise<{ wallMs: number; output: string }> {
  const t0 = performance.now();
  // In the checkout that holds `bin` (another one's, to compare): its CLI finds its tsconfig and data from there.
  const child = spawn(process.execPath, [bin, ...args], { cwd: join(dirname(bin), '..'), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const wallMs = performance.now() - t0;
      if (code !== 0) reject(new Error(`sqlsweep ${args.join(' ')} exited ${code}: ${output.slice(-500)}`));
      else resolve({ wallMs, output });
    });
  });
}

export interface CliTimingOptions {
  /** DATABASE_URL, REDIS_URL and SQLSWEEP_QUEUE_PREFIX of the database and Redis that hold the run. */
  env: NodeJS.ProcessEnv;
  runId: string;
  /** Timed processes per command, after one untimed cold start. Default 5. */
  runs?: number;
  /** The `sqlsweep` to time (default this checkout's bin/sqlsweep; another checkout's to compare). */
  bin?: string;
}

/**
 * `sqlsweep status <run>` and `sqlsweep --help` (start-up alone), each timed as whole processes, one at a time. The
 * first process of each command (coldMs) starts on an empty TypeScript cache of its own (SQLSWEEP_TS_CACHE_DIR, a
 * fresh folder: bin/ts-hook.js compiles what it loads, as on a fresh clone); the timed ones on the cache it left.
 */
export async function measureCli(o: CliTimingOptions): Promise<{ status: LatencyFigures; cliStartup: LatencyFigures }> {
  const timeCli = async (args: string[]) => {
    const env = { ...o.env, SQLSWEEP_TS_CACHE_DIR: join(mkdtempSync(join(tmpdir(), 'scale-cli-')), 'ts-cache') };
    const cold = await runCli(env, args, o.bin);
    const walls: number[] = [];
    for (let k = 0; k < (o.runs ?? 5); k++) walls.push((await runCli(env, args, o.bin)).wallMs);
    rmSync(dirname(env.SQLSWEEP_TS_CACHE_DIR), { recursive: true, force: true });
    return figures(cold.wallMs, walls);
  };
  const status = await timeCli(['status', o.runId]);
  const cliStartup = await timeCli(['--help']);
  return { status, cliStartup };
}

export async function measureApiLatencies(opts: ApiLatencyOptions): Promise<ApiLatencyResult> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const samples = opts.samples ?? 30;
  const t0 = performance.now();
  const { runStages, filled, storage, variantIds, itemIds } = await withClient(opts.databaseUrl, async (c) => {
    const { rows: [p] } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM run_stages WHERE run_id = $1', [opts.runId]);
    log(`api-latency: run ${opts.runId} plans ${p!.n} stages; filling ${opts.itemResults ?? 100_000} item results`);
    const target = opts.itemResults ?? 100_000;
    const { rows: [had] } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM item_results WHERE run_id = $1', [opts.runId]);
    const filledNow = had!.n >= target ? { itemResults: had!.n, stageResults: -1 } : await fillRunResults(c, opts.runId, target);
    const { rows: vs } = await c.query<{ id: string }>('SELECT id FROM variants WHERE run_id = $1 ORDER BY position', [opts.runId]);
    const { rows: its } = await c.query<{ item_id: string }>('SELECT DISTINCT item_id FROM item_results WHERE run_id = $1 AND variant_id = $2 LIMIT 200', [opts.runId, vs[0]!.id]);
    await c.query('VACUUM ANALYZE run_stages');
    await c.query('VACUUM ANALYZE stage_results');
    await c.query('VACUUM ANALYZE item_results');
    return {
      runStages: p!.n, filled: filledNow, variantIds: vs.map((v) => v.id), itemIds: its.map((i) => i.item_id),
      storage: { runStages: await tableStorage(c, 'run_stages'), stageResults: await tableStorage(c, 'stage_results'), itemResults: await tableStorage(c, 'item_results') },
    };
  });
  const fillMs = performance.now() - t0;
  log(`api-latency: ${filled.itemResults} item results, ${filled.stageResults} stage results in ${(fillMs / 1000).toFixed(1)} s`);

  const token = randomBytes(16).toString('hex');
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: opts.databaseUrl, REDIS_URL: opts.redisUrl, SQLSWEEP_QUEUE_PREFIX: `scale_${randomBytes(4).toString('hex')}`,
    SQLSWEEP_API_TOKEN: token, PORT: '0', LOG_LEVEL: 'warn', SQLSWEEP_DATA_DIR: mkdtempSync(join(tmpdir(), 'scale-api-')),
    // The orchestrator re-checks running runs once as it starts (before the timed requests); its periodic reconciler
    // would re-check the 1,000,000-stage run during them.
    SQLSWEEP_RECONCILE_MS: String(3_600_000),
  };
  const api = await startOrchestrator(env, log);
  try {
    const base = `${api.url}/api/runs/${opts.runId}`;
    let i = 0;
    const nextItem = () => itemIds[i++ % itemIds.length]!;
    let page = 0;
    const endpoints = {
      runStatus: await measure(() => base, token, samples),
      leaderboard: await measure(() => `${base}/leaderboard`, token, samples),
      itemsPage: await measure(() => `${base}/items?limit=50&offset=${50 * (page++ % 20)}`, token, samples),
      itemDetail: await measure(() => `${base}/items/${encodeURIComponent(nextItem())}`, token, samples),
      compare: await measure(() => `${api.url}/api/compare?runA=${opts.runId}&variantA=${variantIds[0]}&runB=${opts.runId}&variantB=${variantIds[1] ?? variantIds[0]}`, token, samples),
    };
    log(`api-latency: ${JSON.stringify(endpoints)}`);
    const { status, cliStartup } = await measureCli({ env, runId: opts.runId, runs: opts.statusRuns });
    log(`api-latency: sqlsweep status ${JSON.stringify(status)}; start-up alone (--help) ${JSON.stringify(cliStartup)}`);
    return { runStages, itemResults: filled.itemResults, stageResults: filled.stageResults, fillMs: Math.round(fillMs), endpoints, status, cliStartup, storage };
  } finally {
    await api.stop();
    // Jobs the start-up re-check enqueued for stages left without results (no worker serves this prefix).
    const { removeQueuePrefixKeys } = await import('@sqlsweep/testing');
    await removeQueuePrefixKeys(opts.redisUrl, env.SQLSWEEP_QUEUE_PREFIX!).catch((e: Error) => log(`api-latency: could not remove queue prefix ${env.SQLSWEEP_QUEUE_PREFIX}: ${e.message}`));
  }
}

// ------------------------------------------------------------------------------------------- development seed

export interface SyntheticRunOptions { variants: number; items: number; stagesPerItem: number }

/**
 * A run planned by SQL alone (no planner): a dataset version of `items` items, `variants` variants, and per
 * (variant, item) a chain of `stagesPerItem` stages (the first shared by every variant, as retrieval is), the last
 * final; keys are sha256 hex, as planned keys are. For developing the queries at scale without the planner; bench/scale/run.ts measures a planned run.
 */
export async function seedSyntheticRun(c: Client, o: SyntheticRunOptions): Promise<string> {
  const runId = (await c.query<{ id: string }>('SELECT gen_random_uuid() AS id')).rows[0]!.id;
  await c.query('BEGIN');
  const { rows: [ds] } = await c.query<{ id: number }>(`INSERT INTO datasets (name) VALUES ('synthetic-' || $1) RETURNING id`, [runId.slice(0, 8)]);
  const { rows: [dv] } = await c.query<{ id: number }>(`INSERT INTO dataset_versions (dataset_id, content_hash, format, source_path, item_count)
    VALUES ($1, md5($2), 'spider', '/synthetic', $3) RETURNING id`, [ds!.id, runId, o.items]);
  await c.query(`INSERT INTO dataset_items (version_id, item_id, position, split, db_id, question, gold_sql, difficulty, hardness)
    SELECT $1, 'dev-' || i, i, 'dev', 'db' || (i % 4), 'Synthetic question number ' || i || '?', 'SELECT ' || i, (ARRAY['easy','medium','hard','extra'])[1 + i % 4], (ARRAY['easy','medium','hard','extra'])[1 + i % 4]
    FROM generate_series(0, $2 - 1) i`, [dv!.id, o.items]);
  const { rows: [sw] } = await c.query<{ id: string }>(`INSERT INTO sweeps (id, name, source, config, config_hash)
    VALUES (gen_random_uuid(), 'synthetic', 'bench/scale', '{}', md5($1)) RETURNING id`, [runId]);
  await c.query(`INSERT INTO runs (id, sweep_id, dataset_version_id, status, item_count, stage_jobs, reused_stages, simulated)
    VALUES ($1, $2, $3, 'running', $4, $5, 0, true)`, [runId, sw!.id, dv!.id, o.items, o.variants * o.items * (o.stagesPerItem - 1) + o.items]);
  await c.query(`INSERT INTO variants (id, run_id, variant_key, label, pipeline, model, sample_index, params, position)
    SELECT gen_random_uuid(), $1, 'v' || v, 'variant ' || v, 'synthetic', 'sim-model', 0, jsonb_build_object('theta', v), v
    FROM generate_series(0, $2 - 1) v`, [runId, o.variants]);
  await c.query(`
    INSERT INTO run_stages (run_id, variant_id, item_id, stage, stage_key, role, params, inputs, input_keys, last_input_key, is_final)
    SELECT v.run_id, v.id, 'dev-' || i, 's' || lpad(s::text, 2, '0'),
      CASE WHEN s = 0 THEN encode(sha256(convert_to('shared:' || $1::text || ':' || i, 'UTF8')), 'hex') ELSE encode(sha256(convert_to($1::text || ':' || v.position || ':' || i || ':' || s, 'UTF8')), 'hex') END,
      CASE WHEN s % 3 = 1 THEN 'llm' ELSE 'sql' END, '{}', CASE WHEN s = 0 THEN '{}'::jsonb ELSE jsonb_build_object('prev', CASE WHEN s = 1 THEN encode(sha256(convert_to('shared:' || $1::text || ':' || i, 'UTF8')), 'hex') ELSE encode(sha256(convert_to($1::text || ':' || v.position || ':' || i || ':' || (s - 1), 'UTF8')), 'hex') END) END,
      CASE WHEN s = 0 THEN '{}'::text[] WHEN s = 1 THEN ARRAY[encode(sha256(convert_to('shared:' || $1::text || ':' || i, 'UTF8')), 'hex')] ELSE ARRAY[encode(sha256(convert_to($1::text || ':' || v.position || ':' || i || ':' || (s - 1), 'UTF8')), 'hex')] END,
      CASE WHEN s = 0 THEN NULL WHEN s = 1 THEN encode(sha256(convert_to('shared:' || $1::text || ':' || i, 'UTF8')), 'hex') ELSE encode(sha256(convert_to($1::text || ':' || v.position || ':' || i || ':' || (s - 1), 'UTF8')), 'hex') END,
      s = $3 - 1
    FROM variants v, generate_series(0, $2 - 1) i, generate_series(0, $3 - 1) s
    WHERE v.run_id = $4::uuid`, [runId, o.items, o.stagesPerItem, runId]);
  await c.query('COMMIT');
  await c.query('ANALYZE');
  return runId;
}

/**
 * `--cli-only`: only `sqlsweep status <run>` and `sqlsweep --help` (measureCli), on the run as it is, or with `--done`
 * its results filled (`--item-results`, default 1,000) and the run marked done, so that status prints a leaderboard.
 * `--bin PATH`: time that checkout's bin/sqlsweep (to compare two versions on the same run, machine and minute).
 */
async function cliOnly(databaseUrl: string, redisUrl: string, runId: string, args: string[], arg: (name: string, d: number) => number): Promise<void> {
  if (args.includes('--done')) {
    await withClient(databaseUrl, async (c) => {
      await fillRunResults(c, runId, arg('--item-results', 1_000));
      await c.query(`UPDATE runs SET status = 'done' WHERE id = $1`, [runId]);
    });
  }
  const bins = args.flatMap((a, i) => (a === '--bin' ? [resolve(args[i + 1]!)] : []));
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, SQLSWEEP_QUEUE_PREFIX: `scale_${randomBytes(4).toString('hex')}` };
  // Interleaved, so that a change in the machine's load during the measurement falls on every version alike.
  const rounds = arg('--rounds', 1);
  const results: Array<{ bin: string; round: number; status: LatencyFigures; cliStartup: LatencyFigures }> = [];
  for (let round = 0; round < rounds; round++) {
    for (const bin of bins.length ? bins : [join(repoRoot, 'bin', 'sqlsweep')]) {
      results.push({ bin, round, ...await measureCli({ env, runId, runs: arg('--status-runs', 5), bin }) });
      process.stderr.write(`${JSON.stringify(results.at(-1))}\n`);
    }
  }
  console.log(JSON.stringify({
    benchmark: 'scale-cli', runId, status: args.includes('--done') ? 'done' : 'running', results,
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, loadAverage: loadavg().map((l) => Math.round(l * 100) / 100) }, measuredAt: new Date().toISOString(),
  }, null, 2));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string, d: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : d;
  };
  // Loaded here, not at the top: bench/scale/run.ts imports this module for measureApiLatencies alone.
  const { createTestDatabase } = await import('@sqlsweep/testing');
  const { startPrivateServers } = await import('../private-servers');
  const given = args.indexOf('--database-url');
  if (given < 0 && args.includes('--keep')) throw new Error('--keep needs --database-url: the benchmark\'s own Postgres is removed at the end');
  // Failures before the try below end the servers too, as the process exits (bench/private-servers.ts).
  const servers = await startPrivateServers({ name: 'scale-api-latency', postgres: given < 0 });
  const database = given >= 0
    ? { url: args[given + 1]!, drop: async () => undefined }
    : await createTestDatabase(servers.postgresUrl!); // started: no --database-url
  try {
    const seedStarted = performance.now();
    const givenRun = args.indexOf('--run');
    const runId = givenRun >= 0 ? args[givenRun + 1]! : await withClient(database.url, (c) => seedSyntheticRun(c, { variants: arg('--variants', 5), items: arg('--items', 20_000), stagesPerItem: arg('--stages', 10) }));
    process.stderr.write(`seeded run ${runId} in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s\n`);
    if (args.includes('--cli-only')) {
      await cliOnly(database.url, servers.redisUrl, runId, args, arg);
      return;
    }
    const result = await measureApiLatencies({
      databaseUrl: database.url, redisUrl: servers.redisUrl, runId,
      itemResults: arg('--item-results', 100_000), samples: arg('--samples', 30), statusRuns: arg('--status-runs', 5),
    });
    const out = {
      benchmark: 'scale-api-latency',
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: loadavg().map((l) => Math.round(l * 100) / 100) },
      servers: given >= 0 ? `${servers.description}; the database given by --database-url` : servers.description,
      run: { seededBy: 'seedSyntheticRun', variants: arg('--variants', 5), items: arg('--items', 20_000), stagesPerItem: arg('--stages', 10) },
      ...result,
      note: 'A run planned by SQL (seedSyntheticRun: 5 variants x 20,000 items x 10 stages = 1,000,000 run_stages), its item and stage results filled by SQL (100,000 item results), then every endpoint timed over HTTP against the orchestrator in its own process, one request at a time after one untimed warm-up (coldMs; the first read of a run also counts its plan once into the tallies). status: wall time of `sqlsweep status <run>` processes; cliStartup: `sqlsweep --help` the same way (Node, the TypeScript hook reading compiled modules from its cache, and every command\'s module; coldMs of both: an empty cache, every module compiled); status loads its own command only. bench/scale/run.ts measures the same on a planned run of the scale dataset.',
      measuredAt: new Date().toISOString(),
    };
    if (args.includes('--write')) writeFileSync(join(repoRoot, 'bench', 'results', 'scale-api-latency.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.log(JSON.stringify(out, null, 2));
  } finally {
    if (!args.includes('--keep')) await database.drop();
    else process.stderr.write(`kept database ${database.url}\n`);
    await servers.stop();
  }
}

if (require.main === module) {
  main().catch((e: Error) => {
    process.stderr.write(`${e.stack}\n`);
    process.exit(1);
  });
}
