import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Serves one PGlite session to many `pg` connections over the Postgres wire protocol.
 *
 * PGlite is a single backend session, so connections must take turns. pglite-socket 0.2.17 takes turns
 * per *message*, which lets another connection's Parse/Bind land between this connection's Parse and
 * Sync; under concurrent parameterised queries that fails with "unnamed prepared statement does not
 * exist" (docs/services.md has the reproduction). Here a connection owns the session from its first
 * message until the end of a *unit* — a simple Query, or an extended-protocol batch up to its Sync —
 * and, while an explicit transaction is open, until the transaction ends. Others queue in FIFO order.
 * A connection that drops mid-transaction is rolled back, so it cannot wedge the rest.
 */
export interface PgliteWireServerOptions {
  db: PGlite;
  port: number;
  host?: string;
}

export interface PgliteWireServer {
  port: number;
  stop(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const FUNCTION_CALL = 0x46; // 'F'
const TERMINATE = 0x58; // 'X'

/** Messages after which the client waits for ReadyForQuery: the unit is complete. */
const UNIT_ENDS = new Set([SYNC, QUERY, FUNCTION_CALL]);

export async function startPgliteWireServer(opts: PgliteWireServerOptions): Promise<PgliteWireServer> {
  const { db } = opts;
  await db.waitReady;
  const arbiter = new SessionArbiter();
  const connections = new Set<WireConnection>();
  const server: Server = createServer((socket) => {
    const connection = new WireConnection(socket, db, arbiter);
    connections.add(connection);
    socket.once('close', () => connections.delete(connection));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    port,
    async stop() {
      for (const connection of connections) connection.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Who holds the one PGlite session; the rest wait in arrival order. */
class SessionArbiter {
  private owner: WireConnection | null = null;
  private readonly waiting: Array<{ connection: WireConnection; grant: (granted: boolean) => void }> = [];

  isOwner(connection: WireConnection): boolean {
    return this.owner === connection;
  }

  /** Resolves true once `connection` owns the session, false if its wait was cancelled. */
  acquire(connection: WireConnection): Promise<boolean> {
    if (this.owner === connection) return Promise.resolve(true);
    if (this.owner === null) {
      this.owner = connection;
      return Promise.resolve(true);
    }
    return new Promise((grant) => this.waiting.push({ connection, grant }));
  }

  cancelWait(connection: WireConnection): void {
    const queued = this.waiting.findIndex((w) => w.connection === connection);
    if (queued >= 0) this.waiting.splice(queued, 1)[0]?.grant(false);
  }

  release(connection: WireConnection): void {
    if (this.owner !== connection) return;
    const next = this.waiting.shift();
    this.owner = next?.connection ?? null;
    next?.grant(true);
  }
}

class WireConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly inbox: Buffer[] = [];
  private startupDone = false;
  private draining: Promise<void> | null = null;
  private closed = false;
  /** Inside an extended-protocol batch that has not reached its Sync yet. */
  private midUnit = false;

  constructor(
    private readonly socket: Socket,
    private readonly db: PGlite,
    private readonly arbiter: SessionArbiter,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.receive(chunk));
    socket.on('error', () => void this.close());
    socket.on('close', () => void this.close());
  }

  destroy(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const message = this.nextMessage();
      if (!message) break;
      if (message !== 'handled') this.inbox.push(message);
    }
    if (!this.draining) this.draining = this.drain().finally(() => (this.draining = null));
  }

  /** Splits one whole message off the buffer; answers the untyped pre-startup requests itself. */
  private nextMessage(): Buffer | 'handled' | undefined {
    if (!this.startupDone) {
      if (this.buffer.length < 8) return undefined;
      const length = this.buffer.readInt32BE(0);
      if (this.buffer.length < length) return undefined;
      const code = this.buffer.readInt32BE(4);
      const message = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        this.socket.write('N'); // no encryption on loopback; the client continues in plain text
        return 'handled';
      }
      if (code === CANCEL_REQUEST) {
        this.socket.end(); // one session cannot cancel a query running for someone else
        return 'handled';
      }
      if (code !== PROTOCOL_3) {
        this.socket.destroy();
        return 'handled';
      }
      this.startupDone = true;
      return Buffer.from(message);
    }
    if (this.buffer.length < 5) return undefined;
    const length = 1 + this.buffer.readInt32BE(1);
    if (this.buffer.length < length) return undefined;
    const message = Buffer.from(this.buffer.subarray(0, length));
    this.buffer = this.buffer.subarray(length);
    return message;
  }

  private async drain(): Promise<void> {
    try {
      while (!this.closed && this.inbox.length > 0) {
        const message = this.inbox.shift() as Buffer;
        const type = message[0] as number;
        if (type === TERMINATE) {
          this.socket.end();
          break;
        }
        if (!(await this.arbiter.acquire(this)) || this.closed) break;
        await this.execute(message);
        // The startup packet has no type byte; its first byte is the high byte of its length, 0.
        const completesUnit = UNIT_ENDS.has(type) || type === 0;
        this.midUnit = !completesUnit;
        if (completesUnit && !this.db.isInTransaction()) this.arbiter.release(this);
      }
    } catch (error) {
      this.socket.destroy(error as Error);
    }
  }

  private execute(message: Buffer): Promise<void> {
    return this.db.runExclusive(() =>
      this.db.execProtocolRawStream(new Uint8Array(message), {
        onRawData: (data) => {
          if (!this.closed && data.length > 0) this.socket.write(Buffer.from(data));
        },
      }),
    );
  }

  /**
   * A connection that goes away while owning the session must not leave a batch or a transaction
   * behind. Its message loop is stopped first, so nothing of it runs after the clean-up.
   */
  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.inbox.length = 0;
    this.arbiter.cancelWait(this);
    await this.draining;
    if (!this.arbiter.isOwner(this)) return;
    try {
      if (this.midUnit) await this.execute(Buffer.from([SYNC, 0, 0, 0, 4]));
      if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    } catch {
      // the session is reset as far as it can be; the next owner still gets its turn
    } finally {
      this.arbiter.release(this);
    }
  }
}
