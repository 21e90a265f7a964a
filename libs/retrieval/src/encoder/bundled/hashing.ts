import { mulberry32 } from '@sqlsweep/contracts';

/** FNV-1a 32-bit hash of a string; the seed of every deterministic vector of the bundled encoder. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Adds weight * a pseudo-random ±1 vector derived from `key` into `target`. */
export function addHashedSignVector(target: Float32Array, key: string, weight: number): void {
  const random = mulberry32(fnv1a(key));
  for (let i = 0; i < target.length; i++) target[i] += random() < 0.5 ? -weight : weight;
}
