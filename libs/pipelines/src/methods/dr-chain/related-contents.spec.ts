import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandVariants, parseSweepConfig } from '@sqlsweep/contracts';
import { questionValues } from './related-contents';

describe('questionValues', () => {
  it('finds quoted text, numbers and capitalised names after the first word', () => {
    expect(questionValues('How many flights left Heathrow Airport on "Valentine\'s Day" 2024?')).toEqual(["Valentine's Day", '2024', 'Heathrow Airport']);
  });
});

describe('configs/sweeps/dr-chain-*.yaml', () => {
  it('validates and runs the full method and the two ablations of Fig. 2', () => {
    const path = join(__dirname, '..', '..', '..', '..', '..', 'configs', 'sweeps', 'dr-chain-ablations.yaml');
    const variants = expandVariants(parseSweepConfig(readFileSync(path, 'utf8'), path));
    expect(variants.map((v) => [v.params.simplification, v.params.revision]).sort()).toEqual([[false, true], [true, false], [true, true]]);
  });
});
