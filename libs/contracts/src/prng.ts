/**
 * mulberry32: a small, fast, seedable PRNG, uniform in [0, 1). 32-bit integer arithmetic only (Math.imul, >>>), so
 * a seed gives the same stream on every platform: the bundled encoder's vectors, bootstrap intervals and the LLM
 * simulator's answers are reproducible from their seeds.
 */
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
