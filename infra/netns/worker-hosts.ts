/**
 * sqlsweep worker processes on namespace hosts, reaching Redis, Postgres and the LLM simulator of the root namespace
 * through gateways on the bridge's address: one gateway per service, its delay the network's where netem is missing.
 * A worker is started exactly as production starts one (apps/worker/src/main.ts), with its URLs pointing at the
 * gateways; `started` resolves on its `worker started` log line.
 */
import { join } from 'node:path';
import { startGateway, urlThrough, type Gateway } from './gateway';
import type { HostNetwork, NetnsHost } from './host-network';
import { spawnInHost, type NetnsProcess } from './netns-process';

const repoRoot = join(__dirname, '..', '..');

export interface ServiceUrls {
  /** Left out where the workers' REDIS_URL names loopback ports relayed into the hosts (relayLoopbackPorts). */
  redisUrl?: string;
  databaseUrl: string;
  /** The LLM simulator, when the workers call one. */
  simUrl?: string;
}

export interface HostWorker extends NetnsProcess {
  /** Resolves when the worker logs `worker started`; rejects if it exits first. */
  started: Promise<void>;
  /** Its log lines so far (JSON, as the worker writes them). */
  lines: string[];
}

export class WorkerHosts {
  readonly workers: HostWorker[] = [];
  private readonly relays: NetnsProcess[] = [];
  private readonly relayGateways: Gateway[] = [];

  private constructor(readonly net: HostNetwork, private readonly gateways: Record<keyof ServiceUrls, Gateway | undefined>, readonly hostUrls: ServiceUrls) {}

  /** Gateways on the bridge for each service in `urls` (which must be on loopback, where the gateways forward). */
  static async start(net: HostNetwork, urls: ServiceUrls): Promise<WorkerHosts> {
    const gatewayTo = (url: string | undefined) => {
      if (!url) return Promise.resolve(undefined);
      const u = new URL(url);
      const port = Number(u.port || (u.protocol === 'http:' ? 80 : 0));
      return startGateway({ listenHost: net.bridgeAddress, targetHost: u.hostname, targetPort: port, delayMs: net.gatewayDelayMs });
    };
    const [redis, database, sim] = await Promise.all([gatewayTo(urls.redisUrl), gatewayTo(urls.databaseUrl), gatewayTo(urls.simUrl)]);
    const hostUrls: ServiceUrls = {
      ...(redis && urls.redisUrl ? { redisUrl: urlThrough(urls.redisUrl, redis) } : {}),
      databaseUrl: urlThrough(urls.databaseUrl, database!),
      ...(sim && urls.simUrl ? { simUrl: urlThrough(urls.simUrl, sim) } : {}),
    };
    return new WorkerHosts(net, { redisUrl: redis, databaseUrl: database, simUrl: sim }, hostUrls);
  }

  /**
   * A worker on host `h`: `env` (queue prefix, data folder, concurrency...) plus the gateway URLs
   * (REDIS_URL, DATABASE_URL, SQLSWEEP_LLM_SIM_URL) and LOG_LEVEL=info, which win over `env`'s.
   */
  startWorker(h: number, env: NodeJS.ProcessEnv, onLine?: (host: NetnsHost, line: string) => void): HostWorker {
    const host = this.net.hosts[h];
    if (!host) throw new Error(`no host ${h}: the network has ${this.net.hosts.length}`);
    const lines: string[] = [];
    let ready: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const proc = spawnInHost(host, [process.execPath, '-r', require.resolve('@swc-node/register'), join(repoRoot, 'apps/worker/src/main.ts')], {
      cwd: repoRoot,
      env: {
        ...process.env, SWC_NODE_PROJECT: join(repoRoot, 'tsconfig.json'), ...env,
        // At info, the worker says when it has started (and which stage jobs it finished, with `inserted`).
        LOG_LEVEL: 'info', DATABASE_URL: this.hostUrls.databaseUrl,
        ...(this.hostUrls.redisUrl ? { REDIS_URL: this.hostUrls.redisUrl } : {}),
        ...(this.hostUrls.simUrl ? { SQLSWEEP_LLM_SIM_URL: this.hostUrls.simUrl } : {}),
      },
      onLine: (line) => {
        lines.push(line);
        if (line.includes('"worker started"')) ready();
        onLine?.(host, line);
      },
    });
    const exitedFirst = new Promise<never>((_, reject) => proc.child.once('exit', (code, signal) => reject(new Error(
      `the worker on ${host.namespace} (${host.address}) exited (${code ?? signal}) before it started:\n${lines.slice(-15).join('\n')}`))));
    exitedFirst.catch(() => undefined);
    const worker: HostWorker = { ...proc, started: Promise.race([started, exitedFirst]), lines };
    this.workers.push(worker);
    return worker;
  }

  /**
   * Makes each root-namespace loopback port in `ports` reachable at the same 127.0.0.1:<port> inside every host: a
   * gateway on the bridge per port (with the network's delay) and a relay process in each namespace. For services that
   * name loopback addresses to their clients, such as Sentinel naming the primary.
   */
  async relayLoopbackPorts(ports: number[]): Promise<void> {
    const gateways = await Promise.all(ports.map((port) => startGateway({ listenHost: this.net.bridgeAddress, targetPort: port, delayMs: this.net.gatewayDelayMs })));
    this.relayGateways.push(...gateways);
    const args = ports.map((port, i) => `${port}=${this.net.bridgeAddress}:${gateways[i].port}`);
    await Promise.all(this.net.hosts.map((host) => new Promise<void>((resolve, reject) => {
      const lines: string[] = [];
      const relay = spawnInHost(host, [process.execPath, '-r', require.resolve('@swc-node/register'), join(__dirname, 'loopback-relay.ts'), ...args], {
        cwd: repoRoot, env: { ...process.env, SWC_NODE_PROJECT: join(repoRoot, 'tsconfig.json') },
        onLine: (line) => { lines.push(line); if (line === 'relay ready') resolve(); },
      });
      this.relays.push(relay);
      relay.child.once('exit', (code) => reject(new Error(`the loopback relay on ${host.namespace} exited (${code}):\n${lines.join('\n')}`)));
    })));
  }

  /** Stops the workers (SIGTERM, SIGKILL after `graceMs`), the relays, and closes the gateways; the network is the caller's to destroy. */
  async stop(graceMs = 15_000): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop('SIGTERM', graceMs)));
    await Promise.all(this.relays.map((r) => r.stop('SIGTERM', 2_000)));
    await Promise.all([...Object.values(this.gateways), ...this.relayGateways].map((g) => g?.close()));
  }
}
