/** A sweep config: zero-shot on minibench dev's first `limit` items, both simulated models, at one temperature. */
export const zeroShotSweep = (name: string, limit: number, temperature: number) => `name: ${name}
dataset: minibench
split: dev
items: { limit: ${limit} }
models: [sim-strong, sim-weak]
pipelines:
  - pipeline: zero-shot
    grid:
      temperature: [${temperature}]
seed: 7
`;
