import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase, runCli, spawnCli, startSimulator, startWorkers, testQueuePrefix,
  type CliResult, type Proc, type RunningCli, type Simulator, type SimulatorOptions, type TestDatabase,
} from '@sqlsweep/testing';

const sweepArgs = (config: string, extraArgs: string[] = []) => ['run', config, '--workers', '0', '--no-progress', ...extraArgs];

export interface E2eStackOptions {
  /** Worker processes to start once minibench is registered; `startWorkers` starts more later. */
  workers?: number;
  /** How to start the LLM simulator, or false for a stack without one. */
  simulator?: SimulatorOptions | false;
  /** More environment for the CLI and the workers; it wins over the stack's own variables. */
  env?: NodeJS.ProcessEnv;
  /** The Postgres server to make the stack's database on (a private one a fault test restarts); the shared one by default. */
  postgresUrl?: string;
}

/**
 * What an end-to-end suite runs against: its own Postgres database, BullMQ prefix and data folder, the LLM
 * simulator, minibench registered through the CLI, and worker processes, all given one environment.
 */
export class E2eStack {
  readonly prefix = testQueuePrefix();
  readonly dataDir = mkdtempSync(join(tmpdir(), 'sqlsweep-e2e-'));
  /** The workers now running (`stopWorkers` empties it). */
  readonly workers: Proc[] = [];
  private database?: TestDatabase;
  private simulator?: Simulator;
  private readonly spawned: RunningCli[] = [];

  constructor(private readonly extraEnv: NodeJS.ProcessEnv = {}, private readonly postgresUrl?: string) {}

  /** DATABASE_URL, REDIS_URL, SQLSWEEP_QUEUE_PREFIX, SQLSWEEP_DATA_DIR, SQLSWEEP_LLM_SIM_URL, then the extra env. */
  get env(): NodeJS.ProcessEnv {
    return {
      DATABASE_URL: this.testDatabase.url, REDIS_URL: process.env.REDIS_URL, SQLSWEEP_QUEUE_PREFIX: this.prefix, SQLSWEEP_DATA_DIR: this.dataDir,
      ...(this.simulator ? { SQLSWEEP_LLM_SIM_URL: this.simulator.url } : {}),
      ...this.extraEnv,
    };
  }

  get db(): TestDatabase['db'] { return this.testDatabase.db; }
  get databaseUrl(): string { return this.testDatabase.url; }

  get sim(): Simulator {
    if (!this.simulator) throw new Error('this end-to-end stack was started without the LLM simulator');
    return this.simulator;
  }

  private get testDatabase(): TestDatabase {
    if (!this.database) throw new Error('the end-to-end stack has no database yet');
    return this.database;
  }

  /** Creates the database and starts the simulator side by side; whatever started is kept for `stop` even if the other failed. */
  async start(simulator: SimulatorOptions | false): Promise<void> {
    const started = await Promise.allSettled([
      createTestDatabase(this.postgresUrl).then((d) => { this.database = d; }),
      simulator === false ? undefined : startSimulator(simulator).then((s) => { this.simulator = s; }),
    ]);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
  }

  async registerMinibench(): Promise<void> {
    const added = await this.cli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist']);
    if (added.code !== 0 || added.stderr !== '') {
      throw new Error(`sqlsweep datasets add minibench: exit ${added.code}, expected 0 and nothing on stderr\n${added.stdout}\n${added.stderr}`);
    }
  }

  /** `sqlsweep <args>` with the stack's environment. */
  cli(args: string[], timeoutMs?: number): Promise<CliResult> {
    return runCli(args, this.env, timeoutMs);
  }

  /** `sqlsweep run <config>` to the end, the stack's workers doing the work (no local ones started). */
  runSweep(config: string, timeoutMs?: number): Promise<CliResult> {
    return this.cli(sweepArgs(config), timeoutMs);
  }

  /** `sqlsweep run <config> [extraArgs]` left running; `stop` kills it if it still runs then. */
  startSweep(config: string, extraArgs: string[] = []): RunningCli {
    const cli = spawnCli(sweepArgs(config, extraArgs), this.env);
    this.spawned.push(cli);
    return cli;
  }

  startWorkers(count: number): Proc[] {
    const started = startWorkers(count, this.env);
    this.workers.push(...started);
    return started;
  }

  async stopWorkers(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((w) => w.stop()));
  }

  /** A new simulator in place of the old; the workers restart with it, since they read its URL when they start. */
  async restartSimulator(options: SimulatorOptions): Promise<void> {
    const count = this.workers.length;
    await this.stopWorkers();
    await this.simulator?.stop();
    this.simulator = undefined;
    this.simulator = await startSimulator(options);
    this.startWorkers(count);
  }

  /** Writes a file (a sweep config, say) into the stack's data folder and returns its path. */
  writeFile(name: string, text: string): string {
    const path = join(this.dataDir, name);
    writeFileSync(path, text);
    return path;
  }

  async stop(): Promise<void> {
    for (const cli of this.spawned) if (!cli.exited) cli.child.kill('SIGKILL');
    await this.stopWorkers();
    await this.simulator?.stop();
    await this.database?.drop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * A database, the simulator (unless `simulator: false`), minibench registered and `workers` worker processes; on a
 * failure part way, what had started is stopped again before the error is thrown.
 */
export async function startE2eStack(options: E2eStackOptions = {}): Promise<E2eStack> {
  const stack = new E2eStack(options.env, options.postgresUrl);
  try {
    await stack.start(options.simulator ?? {});
    await stack.registerMinibench();
    stack.startWorkers(options.workers ?? 0);
    return stack;
  } catch (e) {
    await stack.stop();
    throw e;
  }
}
