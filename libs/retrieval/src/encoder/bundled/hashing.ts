/** FNV-1a 32-bit hash of a string; the seed of every deterministic vector of the bundled encoder. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** mulberry32: a small, fast, reproducible PRNG (identical output on every platform). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Adds weight * a pseudo-random ±1 vector derived from `key` into `target`. */
export function addHashedSignVector(target: Float32Array, key: string, weight: number): void {
  const random = mulberry32(fnv1a(key));
  for (let i = 0; i < target.length; i++) target[i] += random() < 0.5 ? -weight : weight;
}
