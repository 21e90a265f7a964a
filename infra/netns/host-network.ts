/**
 * Worker "hosts" made of Linux network namespaces: each host is a namespace with its own address on a private /24,
 * joined by a veth pair to a bridge in the root namespace, which holds the subnet's first address (where the services
 * are reached). Delay between a host and the bridge: `tc netem` on both veth ends where the kernel has sch_netem;
 * where it has not, the gateways (gateway.ts) add it, and `delayMethod` says which. A partition drops every packet
 * both ways on the host's veth (a `pfifo limit 0` root qdisc on each end): its TCP connections hang, as behind a
 * dead switch port, rather than being reset.
 *
 * Everything is removed by `destroy` (synchronous, idempotent: processes in the namespaces killed, namespaces,
 * veths and the bridge deleted), which also runs on `exit`, SIGINT and SIGTERM; leftovers of a crashed earlier run
 * are removed by `create`.
 */
import { netnsUnavailableReason } from './capability';
import { findIpTools, runTool, runToolChecked } from './ip-command';
import { runNames, type RunNames } from './names';
import { processesIn, removeStaleLeftovers, type StaleRemoved } from './stale';
import { pickSubnet, rangesInUse } from './subnet';

export interface HostNetworkOptions {
  hosts: number;
  /** One-way delay between each host and the bridge, milliseconds (0: none). */
  delayMs: number;
}

export interface NetnsHost {
  index: number;
  namespace: string;
  address: string;
}

export type DelayMethod = 'netem' | 'gateway' | 'none';

/** Thrown by `HostNetwork.create` where namespaces cannot be made here; the message is the one line to print. */
export class NetnsUnavailableError extends Error {}

export class HostNetwork {
  readonly hosts: NetnsHost[] = [];
  /** How the delay is added: netem on the veths, or by the gateways (no sch_netem in this kernel). */
  delayMethod: DelayMethod = 'none';
  /** Why netem was not used, when it was not. */
  netemUnavailable?: string;
  staleRemoved: StaleRemoved = { namespaces: [], links: [], processes: [] };
  private readonly partitioned = new Set<number>();
  private destroyed = false;
  private readonly onExit = () => this.destroy();
  private readonly onSignal = (signal: NodeJS.Signals) => {
    this.destroy();
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
    // Nobody else handles it: die of it as the process would have without this handler.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };

  private constructor(
    private readonly ip: string,
    private readonly tc: string,
    private readonly names: RunNames,
    readonly subnet: string,
    readonly delayMs: number,
  ) {}

  /** `<subnet>.1`: the bridge's address in the root namespace, where gateways listen for the hosts. */
  get bridgeAddress(): string { return `${this.subnet}.1`; }
  get bridge(): string { return this.names.bridge; }
  /** The delay the gateways must add themselves: all of it where netem is not used. */
  get gatewayDelayMs(): number { return this.delayMethod === 'gateway' ? this.delayMs : 0; }

  static create(opts: HostNetworkOptions): HostNetwork {
    const unavailable = netnsUnavailableReason();
    if (unavailable) throw new NetnsUnavailableError(unavailable);
    if (!Number.isInteger(opts.hosts) || opts.hosts < 1 || opts.hosts > 200) throw new Error(`hosts: expected 1 to 200, got ${opts.hosts}`);
    if (!(opts.delayMs >= 0)) throw new Error(`delayMs: expected a number >= 0, got ${opts.delayMs}`);
    const { ip, tc } = findIpTools();
    const staleRemoved = removeStaleLeftovers(ip!);
    const net = new HostNetwork(ip!, tc!, runNames(), pickSubnet(rangesInUse(ip!)), opts.delayMs);
    net.staleRemoved = staleRemoved;
    process.on('exit', net.onExit);
    process.on('SIGINT', net.onSignal);
    process.on('SIGTERM', net.onSignal);
    try {
      net.build(opts.hosts);
    } catch (e) {
      net.destroy();
      throw e;
    }
    return net;
  }

  private ipc(...args: string[]): string { return runToolChecked(this.ip, args); }
  private inNs(ns: string, ...args: string[]): string { return runToolChecked(this.ip, ['netns', 'exec', ns, ...args]); }

  private build(hosts: number): void {
    const n = this.names;
    this.ipc('link', 'add', n.bridge, 'type', 'bridge');
    this.ipc('addr', 'add', `${this.bridgeAddress}/24`, 'dev', n.bridge);
    this.ipc('link', 'set', n.bridge, 'up');
    for (let h = 0; h < hosts; h++) {
      const host: NetnsHost = { index: h, namespace: n.namespace(h), address: `${this.subnet}.${h + 10}` };
      this.ipc('netns', 'add', host.namespace);
      this.hosts.push(host);
      this.ipc('link', 'add', n.rootVeth(h), 'type', 'veth', 'peer', 'name', n.hostVeth(h));
      this.ipc('link', 'set', n.hostVeth(h), 'netns', host.namespace);
      this.ipc('link', 'set', n.rootVeth(h), 'master', n.bridge);
      this.ipc('link', 'set', n.rootVeth(h), 'up');
      this.inNs(host.namespace, this.ip, 'link', 'set', 'lo', 'up');
      this.inNs(host.namespace, this.ip, 'addr', 'add', `${host.address}/24`, 'dev', n.hostVeth(h));
      this.inNs(host.namespace, this.ip, 'link', 'set', n.hostVeth(h), 'up');
      this.inNs(host.namespace, this.ip, 'route', 'add', 'default', 'via', this.bridgeAddress);
    }
    if (this.delayMs > 0) this.addDelay();
  }

  private addDelay(): void {
    const first = runTool(this.tc, ['qdisc', 'add', 'dev', this.names.rootVeth(0), 'root', ...this.netemArgs()]);
    if (!first.ok) {
      this.netemUnavailable = `tc netem: ${first.stderr} (this kernel has no sch_netem)`;
      this.delayMethod = 'gateway';
      return;
    }
    this.delayMethod = 'netem';
    for (const host of this.hosts) this.restoreQdiscs(host.index);
  }

  private netemArgs(): string[] { return ['netem', 'delay', `${this.delayMs}ms`]; }

  /** The qdiscs a healthy host has: netem both ways, or none. */
  private restoreQdiscs(h: number): void {
    const ns = this.hosts[h].namespace;
    for (const [prefix, dev] of [[[], this.names.rootVeth(h)], [['netns', 'exec', ns, this.tc], this.names.hostVeth(h)]] as const) {
      const tcArgs = this.delayMethod === 'netem' ? ['qdisc', 'replace', 'dev', dev, 'root', ...this.netemArgs()] : ['qdisc', 'del', 'dev', dev, 'root'];
      if (prefix.length === 0) runTool(this.tc, tcArgs);
      else runTool(this.ip, [...prefix, ...tcArgs]);
    }
  }

  private host(h: number): NetnsHost {
    const host = this.hosts[h];
    if (!host) throw new Error(`no host ${h}: this network has hosts 0 to ${this.hosts.length - 1}`);
    return host;
  }

  /** Every packet to and from host `h` dropped from now on, on both veth ends. */
  partition(h: number): void {
    const host = this.host(h);
    runToolChecked(this.tc, ['qdisc', 'replace', 'dev', this.names.rootVeth(h), 'root', 'pfifo', 'limit', '0']);
    this.inNs(host.namespace, this.tc, 'qdisc', 'replace', 'dev', this.names.hostVeth(h), 'root', 'pfifo', 'limit', '0');
    this.partitioned.add(h);
  }

  /** Host `h` reaches the bridge again (with its delay). */
  heal(h: number): void {
    this.host(h);
    this.restoreQdiscs(h);
    this.partitioned.delete(h);
  }

  isPartitioned(h: number): boolean { return this.partitioned.has(h); }

  /** The processes now running in host `h`'s namespace. */
  processes(h: number): number[] { return processesIn(this.ip, this.host(h).namespace); }

  /** Kills every process in the namespaces, deletes the namespaces, veths and bridge. Safe to call twice. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    process.removeListener('exit', this.onExit);
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
    for (const host of this.hosts) {
      for (const pid of processesIn(this.ip, host.namespace)) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
      }
      runTool(this.ip, ['netns', 'del', host.namespace]);
      runTool(this.ip, ['link', 'del', this.names.rootVeth(host.index)]);
    }
    runTool(this.ip, ['link', 'del', this.names.bridge]);
  }
}
