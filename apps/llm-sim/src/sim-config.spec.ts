import { DEFAULT_SIM_CONFIG_FILE, loadSimConfig, parseSimConfig } from './sim-config';

describe('simulator config', () => {
  it('reads the repository config: every model has the answer model weights, none a fixed accuracy', () => {
    const config = loadSimConfig(DEFAULT_SIM_CONFIG_FILE);
    for (const [name, model] of Object.entries(config.models)) {
      expect([name, model.weights !== undefined, model.accuracy]).toEqual([name, true, undefined]);
    }
  });

  it('names the file and the field of a bad entry', () => {
    const weights = loadSimConfig(DEFAULT_SIM_CONFIG_FILE).models['sim-strong']!.weights!;
    expect(() => parseSimConfig({ models: { m: { weights: { ...weights, noiseTables: 'high' } } } }, 'my.yaml')).toThrow(/my\.yaml: invalid simulator config:\n {2}models\.m\.weights\.noiseTables: /);
    const { evidence: _dropped, ...missing } = weights;
    expect(() => parseSimConfig({ models: { m: { weights: missing } } }, 'my.yaml')).toThrow(/models\.m\.weights\.evidence: Invalid input: expected number, received undefined/);
    expect(() => parseSimConfig({ models: { m: { rpm: 5 } } }, 'my.yaml')).toThrow(/models\.m: give either weights .* or accuracy/);
    expect(() => parseSimConfig({ models: { m: { accuracy: 1, weights } } }, 'my.yaml')).toThrow(/models\.m: give either weights/);
    expect(parseSimConfig({ models: { m: { accuracy: 0.5 } } }, 'my.yaml').models.m!.accuracy).toBe(0.5);
  });
});
