/**
 * A TCP gateway in the root namespace: listens on the bridge's address (where the hosts reach it) and forwards each
 * connection to a service on loopback, holding every chunk `delayMs` in each direction when the delay is the
 * gateway's to add (no sch_netem). Chunks keep their order: Node runs timers of one duration first in, first out.
 * The services themselves stay on loopback; a host reaches them only through their gateways.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface Gateway {
  /** `<bridge address>:<port>` the hosts connect to. */
  host: string;
  port: number;
  /** Connections forwarded so far. */
  connections(): number;
  close(): Promise<void>;
}

function forward(from: Socket, to: Socket, delayMs: number): void {
  from.on('data', (chunk) => {
    if (delayMs === 0) to.write(chunk);
    else setTimeout(() => { if (!to.destroyed) to.write(chunk); }, delayMs);
  });
  from.on('end', () => (delayMs === 0 ? to.end() : setTimeout(() => to.end(), delayMs)));
}

export function startGateway(opts: { listenHost: string; listenPort?: number; targetHost?: string; targetPort: number; delayMs: number }): Promise<Gateway> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server: Server = createServer((client) => {
    count++;
    const upstream = createConnection({ host: opts.targetHost ?? '127.0.0.1', port: opts.targetPort });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on('error', () => { client.destroy(); upstream.destroy(); });
      // The other side ends once the chunks still held for it are written.
      s.on('close', () => { sockets.delete(s); const other = s === client ? upstream : client; setTimeout(() => other.end(), opts.delayMs); });
    }
    forward(client, upstream, opts.delayMs);
    forward(upstream, client, opts.delayMs);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.listenPort ?? 0, opts.listenHost, () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        host: opts.listenHost, port, connections: () => count,
        close: () => new Promise<void>((done) => {
          for (const s of sockets) s.destroy();
          server.close(() => done());
        }),
      });
    });
  });
}

/** `url` with its host and port replaced by the gateway's (redis://, postgres://, http:// alike). */
export function urlThrough(url: string, gateway: Gateway): string {
  const u = new URL(url);
  u.hostname = gateway.host;
  u.port = String(gateway.port);
  return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
}
