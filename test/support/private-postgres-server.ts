import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { debianPostgresBinDirs, findFreePort, findPostgresBinaries, pathDirectories, startPrivatePostgres, stopPrivatePostgres } from '@sqlsweep/infra';

/** A Postgres server of a test's own on a free port, which the test may stop and start again (a fault test). */
export class PrivatePostgresServer {
  private constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly binaries: NonNullable<ReturnType<typeof findPostgresBinaries>>,
    private readonly searchDirs: string[],
  ) {}

  /** The maintenance database's URL: `createTestDatabase(server.url)` makes a database on it. */
  get url(): string { return `postgres://postgres@127.0.0.1:${this.port}/postgres`; }

  static async start(): Promise<PrivatePostgresServer> {
    const searchDirs = [...pathDirectories(process.env), ...debianPostgresBinDirs()];
    const binaries = findPostgresBinaries(searchDirs);
    if (!binaries) throw new Error('no initdb and pg_ctl on PATH or in /usr/lib/postgresql/*/bin: a private Postgres cannot be started');
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-private-pg-'));
    chmodSync(dir, 0o755); // as root, the postgres OS user runs the server and must reach this folder
    const port = await findFreePort(20_000 + Math.floor(Math.random() * 20_000));
    const server = new PrivatePostgresServer(dir, port, binaries, searchDirs);
    await server.startAgain();
    return server;
  }

  /** Stops the server (connections are cut, new ones refused). */
  stop(): void {
    stopPrivatePostgres(this.dir, this.binaries, this.searchDirs);
  }

  /** Starts it again on the same port, with the same data. */
  async startAgain(): Promise<void> {
    const started = await startPrivatePostgres({ dir: this.dir, binaries: this.binaries, preferredPort: this.port, searchDirs: this.searchDirs, log: () => undefined });
    if (started.port !== this.port) throw new Error(`private postgres came back on port ${started.port}, not ${this.port}`);
  }

  /** Stops it for good and removes its files. */
  destroy(): void {
    try {
      this.stop();
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
