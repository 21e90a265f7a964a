import { createHash } from 'node:crypto';

export type Rng = () => number;

/** mulberry32: a small, fast PRNG; uniform in [0, 1). */
function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A PRNG seeded from the hash of the given parts, so equal parts give equal streams. */
export function seededRng(...parts: Array<string | number>): Rng {
  const digest = createHash('sha256').update(parts.map(String).join('\u0000')).digest();
  return mulberry32(digest.readUInt32LE(0));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(rng() * items.length)]!;
}
