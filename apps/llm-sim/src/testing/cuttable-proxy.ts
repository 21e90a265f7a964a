import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to a server on 127.0.0.1 that a test can cut (every connection dropped, new ones closed at once, as
 * when the server is down) and restore: a Postgres outage for one pool, without touching the shared server.
 */
export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private cut = false;

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(targetPort: number): Promise<CuttableProxy> {
    let proxy: CuttableProxy | undefined;
    const server = createServer((inbound) => proxy!.accept(inbound, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new CuttableProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  outage(): void {
    this.cut = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.cut = false;
  }

  async close(): Promise<void> {
    this.outage();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(inbound: Socket, targetPort: number): void {
    if (this.cut) {
      inbound.destroy();
      return;
    }
    const outbound = connect(targetPort, '127.0.0.1');
    for (const [a, b] of [[inbound, outbound], [outbound, inbound]] as const) {
      this.sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  }
}
