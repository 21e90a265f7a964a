import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * PGlite (Postgres compiled to WASM, one session) served over the Postgres wire protocol, so the
 * project's ordinary `pg` code can talk to it. pglite-socket multiplexes many TCP connections onto the
 * one session; docs/services.md records what that does and does not support.
 */
export interface EmbeddedPostgresOptions {
  /** Folder for the database files; omit for an in-memory database. */
  dataDir?: string;
  port: number;
  host?: string;
  /** Connections accepted at once (pglite-socket's default is 1). */
  maxConnections?: number;
}

export interface EmbeddedPostgres {
  port: number;
  url: string;
  stop(): Promise<void>;
}

export const EMBEDDED_DEFAULT_MAX_CONNECTIONS = 100;

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const host = opts.host ?? '127.0.0.1';
  const db = await PGlite.create(opts.dataDir ? { dataDir: opts.dataDir } : {});
  const server = new PGLiteSocketServer({
    db,
    host,
    port: opts.port,
    maxConnections: opts.maxConnections ?? EMBEDDED_DEFAULT_MAX_CONNECTIONS,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw new Error(`embedded Postgres: cannot listen on ${host}:${opts.port}: ${(error as Error).message}`);
  }
  return {
    port: opts.port,
    url: `postgres://postgres@${host}:${opts.port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
