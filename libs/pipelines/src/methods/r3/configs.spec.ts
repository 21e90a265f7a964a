import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expandVariants, parseSweepConfig } from '@sqlsweep/contracts';

const sweeps = join(__dirname, '..', '..', '..', '..', '..', 'configs', 'sweeps');
const read = (name: string) => parseSweepConfig(readFileSync(join(sweeps, name), 'utf8'), name);

describe('shipped R3 and baseline sweep configs', () => {
  it.each(readdirSync(sweeps).filter((f) => /^(r3-.*|baselines)\.yaml$/.test(f)))('%s validates', (name) => {
    expect(expandVariants(read(name)).length).toBeGreaterThan(0);
  });

  it('r3-table3 has the full method and one variant per Table 3 ablation', () => {
    const variants = expandVariants(read('r3-table3.yaml'));
    const switches = variants.map((v) => [v.params.schemaLinking, v.params.decomposition, v.params.rag]);
    expect(switches).toEqual([[true, true, true], [false, true, true], [true, false, true], [true, true, false]]);
  });

  it('baselines has zero-shot and three k values of each few-shot baseline', () => {
    expect(expandVariants(read('baselines.yaml')).map((v) => `${v.pipeline}:${v.params.shots ?? 0}`)).toEqual([
      'zero-shot:0', 'fixed-few-shot:1', 'fixed-few-shot:3', 'fixed-few-shot:5', 'random-few-shot:1', 'random-few-shot:3', 'random-few-shot:5',
    ]);
  });
});
