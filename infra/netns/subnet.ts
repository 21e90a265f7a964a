/**
 * A private /24 for the harness's bridge that overlaps nothing this machine already routes or holds an address in
 * (its real interfaces, other bridges, another harness run): the first free one of 10.213.0.0/16, starting at an
 * offset taken from the pid so that two runs started together try different ones.
 */
import { runToolChecked } from './ip-command';

interface Range { from: number; to: number }

function toInt(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** `10.1.2.0/24` (or a bare address, a /32) as an integer range; undefined for `default` and anything not IPv4. */
export function cidrRange(cidr: string): Range | undefined {
  const m = /^(\d+\.\d+\.\d+\.\d+)(?:\/(\d+))?$/.exec(cidr);
  if (!m) return undefined;
  const bits = m[2] === undefined ? 32 : Number(m[2]);
  const size = 2 ** (32 - bits);
  const from = Math.floor(toInt(m[1]) / size) * size;
  return { from, to: from + size - 1 };
}

/** Every IPv4 range the machine routes or has an address in, from `ip -4 route` and `ip -4 -o addr` of the root namespace. */
export function rangesInUse(ip: string): Range[] {
  const routes = runToolChecked(ip, ['-4', 'route', 'show', 'table', 'all']).split('\n').map((l) => l.trim().split(/\s+/)).map((w) => (w[0] === 'local' || w[0] === 'broadcast' ? w[1] : w[0]));
  const addresses = runToolChecked(ip, ['-4', '-o', 'addr', 'show']).split('\n').map((l) => /inet (\S+)/.exec(l)?.[1]);
  return [...routes, ...addresses].filter((c): c is string => !!c && c !== 'default').map(cidrRange).filter((r): r is Range => !!r);
}

export function pickSubnet(inUse: Range[], pid = process.pid): string {
  for (let i = 0; i < 256; i++) {
    const third = (pid + i) % 256;
    const candidate = cidrRange(`10.213.${third}.0/24`)!;
    if (!inUse.some((r) => r.from <= candidate.to && candidate.from <= r.to)) return `10.213.${third}`;
  }
  throw new Error('no free /24 in 10.213.0.0/16 for the host bridge: every one overlaps a route or address of this machine');
}
