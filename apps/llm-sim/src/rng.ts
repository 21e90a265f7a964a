import { createHash } from 'node:crypto';
import { mulberry32 } from '@sqlsweep/contracts';

export type Rng = () => number;

/** A PRNG seeded from the hash of the given parts, so equal parts give equal streams. */
export function seededRng(...parts: Array<string | number>): Rng {
  const digest = createHash('sha256').update(parts.map(String).join('\u0000')).digest();
  return mulberry32(digest.readUInt32LE(0));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(rng() * items.length)]!;
}
