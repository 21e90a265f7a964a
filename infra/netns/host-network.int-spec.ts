/**
 * The harness against the real kernel: a partition stops a host's TCP both ways and healing restores it; a harness
 * killed by SIGTERM removes what it made; one killed by SIGKILL leaves it, and the next harness removes it.
 * Skips, saying why in one line, where namespaces cannot be made.
 */
import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { netnsUnavailableReason } from './capability';
import { startGateway } from './gateway';
import { HostNetwork } from './host-network';
import { runNames } from './names';

jest.setTimeout(60_000);

const unavailable = netnsUnavailableReason();
if (unavailable) console.log(`netns harness int-spec skipped: ${unavailable}`);
const describeNetns = unavailable ? describe.skip : describe;

const run = promisify(execFile);
const ip = async (...args: string[]) => (await run('ip', args)).stdout;
const repoRoot = join(__dirname, '..', '..');

/** One echo round trip from inside `namespace` to host:port, or `timeout` after 1.5 s. */
async function echoFrom(namespace: string, host: string, port: number): Promise<string> {
  const client = `const s=require('net').connect(${port},'${host}');s.on('connect',()=>s.write('ping'));s.on('data',(d)=>{console.log(String(d));process.exit(0)});setTimeout(()=>{console.log('timeout');process.exit(0)},1500)`;
  return (await run('ip', ['netns', 'exec', namespace, process.execPath, '-e', client])).stdout.trim();
}

/** A child process that makes a one-host network, prints its tag, and waits to be killed. */
function harnessChild(): Promise<{ pid: number; tag: string; exited: Promise<void> }> {
  const code = `require('${join(repoRoot, 'infra/netns/host-network.ts')}').HostNetwork.create({ hosts: 1, delayMs: 0 }); console.log(require('${join(repoRoot, 'infra/netns/names.ts')}').runNames().tag); setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', '-e', code], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`the harness child exited (${c}) before making its network`)));
    child.stdout!.once('data', (d: Buffer) => resolve({ pid: child.pid!, tag: String(d).trim(), exited }));
  });
}

async function leftoversOf(tag: string): Promise<string[]> {
  const names = `${await ip('netns', 'list')}\n${await ip('-o', 'link', 'show')}`;
  return names.split('\n').map((l) => /^(?:\d+:\s+)?([^:@\s]+)/.exec(l)?.[1]).filter((n): n is string => !!n && (n.startsWith(`sqsw-${tag}-`) || n.startsWith(`sqsw${tag}`)));
}

describeNetns('network namespace hosts', () => {
  let echo: Server;
  let port: number;

  beforeAll(async () => {
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    port = (echo.address() as { port: number }).port;
  });
  afterAll(() => echo.close());

  it('reaches loopback services through a gateway; a partition stops a host\'s traffic both ways, healing restores it', async () => {
    const net = HostNetwork.create({ hosts: 2, delayMs: 1 });
    const gateway = await startGateway({ listenHost: net.bridgeAddress, targetPort: port, delayMs: net.gatewayDelayMs });
    try {
      expect(await echoFrom(net.hosts[0].namespace, gateway.host, gateway.port)).toBe('ping');
      net.partition(0);
      expect(await echoFrom(net.hosts[0].namespace, gateway.host, gateway.port)).toBe('timeout');
      expect(await echoFrom(net.hosts[1].namespace, gateway.host, gateway.port)).toBe('ping');
      net.heal(0);
      expect(await echoFrom(net.hosts[0].namespace, gateway.host, gateway.port)).toBe('ping');
    } finally {
      await gateway.close();
      net.destroy();
    }
    expect(await leftoversOf(runNames().tag)).toEqual([]);
  });

  it('removes what it made when SIGTERMed, and what a SIGKILLed harness left at the next start', async () => {
    const terminated = await harnessChild();
    expect((await leftoversOf(terminated.tag)).length).toBeGreaterThan(0);
    process.kill(terminated.pid, 'SIGTERM');
    await terminated.exited;
    expect(await leftoversOf(terminated.tag)).toEqual([]);

    const killed = await harnessChild();
    process.kill(killed.pid, 'SIGKILL');
    await killed.exited;
    const left = await leftoversOf(killed.tag);
    expect(left.length).toBeGreaterThan(0);
    const net = HostNetwork.create({ hosts: 1, delayMs: 0 });
    try {
      expect([...net.staleRemoved.namespaces, ...net.staleRemoved.links].sort()).toEqual(expect.arrayContaining([`sqsw-${killed.tag}-h0`, `sqsw${killed.tag}br`]));
      expect(await leftoversOf(killed.tag)).toEqual([]);
    } finally {
      net.destroy();
    }
  });
});
