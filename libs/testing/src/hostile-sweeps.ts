const tenValues = '[0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]';

/** About 1 KB of sweep YAML whose grid makes 10^7 variants: what admission control must refuse before expanding. */
export const HUGE_GRID_SWEEP = `name: huge
dataset: minibench
models: [sim-strong, sim-weak]
repeats: 50
pipelines:
  - pipeline: rb-sql
    grid: { theta: ${tenValues}, mu: ${tenValues}, muPrime: ${tenValues}, temperature: ${tenValues}, maxTokens: [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192] }
`;
