import { expandVariants, parseSweepConfig, SweepConfigError } from './index';

const src = 'configs/sweeps/x.yaml';
const valid = `
name: demo
dataset: minibench
split: dev
items: { limit: 60 }
models: [sim-strong, sim-weak]
pipelines:
  - pipeline: zero-shot
    grid: { temperature: [0, 0.7] }
seed: 3
`;

function errorOf(text: string): SweepConfigError {
  try {
    parseSweepConfig(text, src);
  } catch (e) {
    if (e instanceof SweepConfigError) return e;
    throw e;
  }
  throw new Error('expected the config to be refused');
}

describe('parseSweepConfig', () => {
  it('accepts a valid config and fills defaults', () => {
    const config = parseSweepConfig(valid, src);
    expect(config.repeats).toBe(1);
    expect(config.pipelines[0].grid).toEqual({ temperature: [0, 0.7], maxTokens: [512] });
  });

  it.each([
    ['bad YAML', 'name: [unclosed', /^configs\/sweeps\/x\.yaml: line 1, column \d+: invalid YAML/],
    ['unknown pipeline', valid.replace('zero-shot', 'telepathy'), /pipelines\[0\]\.pipeline: unknown pipeline "telepathy"/],
    ['wrong grid type', valid.replace('[0, 0.7]', '0.5'), /pipelines\[0\]\.grid\.temperature: expected array of numbers/],
    ['wrong integer', valid.replace('{ temperature: [0, 0.7] }', '{ maxTokens: [1.5] }'), /pipelines\[0\]\.grid\.maxTokens\[0\]: expected an integer/],
    ['unknown knob', valid.replace('temperature', 'temprature'), /pipelines\[0\]\.grid: unknown key\(s\) "temprature"/],
    ['missing dataset', valid.replace('dataset: minibench\n', ''), /^configs\/sweeps\/x\.yaml: dataset: expected the name of a registered dataset/],
    ['no models', valid.replace('[sim-strong, sim-weak]', '[]'), /models: name at least one model/],
    ['not a mapping', '- a\n- b', /expected a mapping/],
  ])('%s: names file, path and reason', (_name, text, pattern) => {
    expect(errorOf(text).message).toMatch(pattern);
  });

  it('refuses a config over 1 MiB before parsing it', () => {
    const text = `${valid}description: "${'é'.repeat(600_000)}"\n`;
    expect(errorOf(text).message).toBe(`${src}: ${Buffer.byteLength(text).toLocaleString('en-US')} bytes is more than a sweep config may have (1 MiB, 1,048,576 bytes)`);
    // Before parsing, not after: parsed, this text is invalid YAML (see the next test), and the size is all it is told.
    expect(errorOf('['.repeat(1_100_000)).reason).toBe('1,100,000 bytes is more than a sweep config may have (1 MiB, 1,048,576 bytes)');
  });

  it('turns an alias bomb and absurd nesting into invalid-YAML errors naming the file', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghij'[i]}`).join(', ')}]`)].join('\n');
    expect(errorOf(bomb).message).toBe(`${src}: invalid YAML: Excessive alias count indicates a resource exhaustion attack`);
    expect(errorOf('['.repeat(100_000)).message).toMatch(/^configs\/sweeps\/x\.yaml: .*invalid YAML: /);
  });
});

describe('expandVariants', () => {
  it('crosses grid, models and repeats with stable keys', () => {
    const config = parseSweepConfig(valid.replace('seed: 3', 'repeats: 2'), src);
    const variants = expandVariants(config);
    expect(variants).toHaveLength(2 * 2 * 2);
    expect(new Set(variants.map((v) => v.key)).size).toBe(8);
    expect(expandVariants(config).map((v) => v.key)).toEqual(variants.map((v) => v.key));
  });
});
