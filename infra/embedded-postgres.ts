import { PGlite } from '@electric-sql/pglite';
import { startPgliteWireServer } from './pglite-wire-server';

/**
 * PGlite (Postgres compiled to WASM, one session) served over the Postgres wire protocol, so the
 * project's ordinary `pg` code can talk to it. Many connections share the one session, taking turns
 * per query batch and per transaction (see pglite-wire-server.ts); docs/services.md records what that
 * does and does not support.
 */
export interface EmbeddedPostgresOptions {
  /** Folder for the database files; omit for an in-memory database. */
  dataDir?: string;
  port: number;
  host?: string;
}

export interface EmbeddedPostgres {
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const host = opts.host ?? '127.0.0.1';
  const db = await PGlite.create(opts.dataDir ? { dataDir: opts.dataDir } : {});
  let server;
  try {
    server = await startPgliteWireServer({ db, host, port: opts.port });
  } catch (error) {
    await db.close();
    throw new Error(`embedded Postgres: cannot listen on ${host}:${opts.port}: ${(error as Error).message}`);
  }
  return {
    port: server.port,
    url: `postgres://postgres@${host}:${server.port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
