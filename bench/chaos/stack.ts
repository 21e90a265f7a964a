/**
 * One chaos scenario's system: a database copied from the template (minibench registered, nothing run), its own
 * BullMQ prefix, the LLM simulator with the scenario's config, the orchestrator and worker processes as production
 * starts them. Every process it starts, and every process those started (sandbox children), is ended by pid in `stop`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { createDb, type Db } from '@sqlsweep/db';
import type { ModelStats } from '@sqlsweep/llm-sim';
import { repoRoot, spawnCli, startSimulator, startWorkers, type Proc, type RunningCli, type Simulator } from '@sqlsweep/testing';

const API_TOKEN = `chaos-${randomBytes(12).toString('hex')}`;

export interface StackOptions {
  /** Maintenance URL of the benchmark's Postgres server. */
  postgresUrl: string;
  redisUrl: string;
  /** Database to copy: migrated, minibench registered. */
  template: string;
  /** The data folder minibench was registered with (its SQLite replicas). */
  dataDir: string;
  simConfig: string;
  workers: number;
  /** LOG_LEVEL of the orchestrator and the workers. */
  logLevel: string;
  /** Orchestrator and worker log lines (JSON), for the scenario's log file. */
  onLogLine: (source: string, line: string) => void;
}

export type SimTotals = Omit<ModelStats, 'inputTokens' | 'cachedInputTokens' | 'outputTokens' | 'maxTokensAdmitted'>;

/** The pids of a process's children, grandchildren and so on, read from /proc (Linux). */
export function descendantsOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children = tasks.flatMap((t) => {
    try {
      return readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return children.flatMap((c) => [c, ...descendantsOf(c)]);
}

/** The command line of a live process, or undefined once it has gone. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
}

async function adminQuery(postgresUrl: string, text: string): Promise<void> {
  const client = new Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function spawnOrchestrator(env: NodeJS.ProcessEnv, onLogLine: (line: string) => void): Promise<Proc & { url: string }> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/orchestrator/src/main.ts'], {
    cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => { clearTimeout(t); resolve(); });
    child.kill(signal);
  });
  createInterface({ input: child.stderr! }).on('line', onLogLine);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the orchestrator did not start listening within 60 s')), 60_000);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the orchestrator exited (${code}) before listening`)); });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      onLogLine(line);
      const m = /"orchestrator listening".*:(\d+)"/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve({ child, stop, url: `http://127.0.0.1:${m[1]}` });
      }
    });
  });
}

export class ScenarioStack {
  readonly prefix = `chaos_${randomBytes(5).toString('hex')}`;
  readonly database = `chaos_${randomBytes(5).toString('hex')}`;
  readonly workers: Proc[] = [];
  db!: Db;
  sim!: Simulator;
  orchestrator?: Proc & { url: string };
  private readonly clis: RunningCli[] = [];
  /** Descendants seen of every process started here: they are ended too, whoever their parent was at the end. */
  private readonly seen = new Map<number, string>();

  private constructor(private readonly opts: StackOptions) {}

  get databaseUrl(): string {
    const url = new URL(this.opts.postgresUrl);
    url.pathname = `/${this.database}`;
    return url.toString();
  }

  get env(): NodeJS.ProcessEnv {
    return {
      DATABASE_URL: this.databaseUrl, REDIS_URL: this.opts.redisUrl, SQLSWEEP_QUEUE_PREFIX: this.prefix, SQLSWEEP_DATA_DIR: this.opts.dataDir,
      SQLSWEEP_LLM_SIM_URL: this.sim.url, LOG_LEVEL: this.opts.logLevel,
    };
  }

  static async start(opts: StackOptions): Promise<ScenarioStack> {
    const stack = new ScenarioStack(opts);
    try {
      await adminQuery(opts.postgresUrl, `CREATE DATABASE ${stack.database} TEMPLATE ${opts.template}`);
      stack.db = createDb(stack.databaseUrl, { max: 2 });
      stack.sim = await startSimulator({ config: opts.simConfig });
      stack.orchestrator = await spawnOrchestrator({
        ...stack.env, PORT: '0', SQLSWEEP_API_TOKEN: API_TOKEN, SQLSWEEP_SCHEDULES_FILE: '/dev/null',
      }, (line) => opts.onLogLine('orchestrator', line));
      stack.workers.push(...startWorkers(opts.workers, stack.env, (line) => opts.onLogLine('worker', line)));
      return stack;
    } catch (e) {
      await stack.stop();
      throw e;
    }
  }

  /** `sqlsweep run <config> --workers 0`: the CLI follows the run, the stack's workers do the work. */
  startCli(config: string): RunningCli {
    const cli = spawnCli(['run', config, '--workers', '0', '--no-progress'], this.env);
    this.clis.push(cli);
    return cli;
  }

  /** `POST /api/runs`: a run no CLI follows. */
  async createRunThroughApi(config: string, source: string): Promise<string> {
    const res = await fetch(`${this.orchestrator!.url}/api/runs`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${API_TOKEN}` },
      body: JSON.stringify({ config, source }), signal: AbortSignal.timeout(60_000),
    });
    const body = (await res.json()) as { runId?: string };
    if (res.status !== 201 || !body.runId) throw new Error(`POST /api/runs answered ${res.status}: ${JSON.stringify(body)}`);
    return body.runId;
  }

  /** The simulator's counts summed over its models. */
  async simTotals(): Promise<SimTotals> {
    const res = await fetch(`${this.sim.url}/sim/stats`, { signal: AbortSignal.timeout(5_000) });
    const byModel = Object.values((await res.json()) as Record<string, ModelStats>);
    const sum = (k: keyof SimTotals) => byModel.reduce((n, s) => n + (s[k] ?? 0), 0);
    return {
      requests: sum('requests'), ok: sum('ok'), rateLimited: sum('rateLimited'), serverErrors: sum('serverErrors'), dropped: sum('dropped'),
      badRequests: sum('badRequests'), abandoned: sum('abandoned'), inFlight: sum('inFlight'),
    };
  }

  /** Remembers the descendants of every process started here, so that `stop` ends them even if their parent died. */
  noteDescendants(): void {
    const roots = [...this.workers, ...(this.orchestrator ? [this.orchestrator] : []), ...this.clis].map((p) => p.child.pid).filter((p): p is number => !!p);
    for (const pid of roots) {
      for (const d of descendantsOf(pid)) {
        const cmd = commandLine(d);
        if (cmd !== undefined) this.seen.set(d, cmd);
      }
    }
  }

  async stop(): Promise<void> {
    this.noteDescendants();
    for (const cli of this.clis) if (!cli.exited) cli.child.kill('SIGKILL');
    await Promise.allSettled([...this.workers.map((w) => w.stop()), this.orchestrator?.stop(), this.sim?.stop()]);
    // Only a pid that still runs the same command: a pid freed meanwhile may belong to someone else now.
    for (const [pid, cmd] of this.seen) if (commandLine(pid) === cmd) process.kill(pid, 'SIGKILL');
    await this.db?.destroy().catch(() => undefined);
    await adminQuery(this.opts.postgresUrl, `DROP DATABASE IF EXISTS ${this.database} WITH (FORCE)`).catch(() => undefined);
  }
}
