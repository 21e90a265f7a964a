import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandVariants, isOperatingPoint, parseSweepConfig, RB_SQL_DEFAULTS, resolveVariantKnobs, type OperatingPoint } from '@sqlsweep/contracts';
import { pipelines, stageImplementations } from './registry';
import { VariantKeyer } from './stage-keys';
import { isTrainSetStage } from './train-sets';

/**
 * Stage keys decide what every stored result is reused for: a refactor of how stages are declared must not change
 * one (a changed key re-runs, and re-pays, every stage below it). The snapshot holds, for every bundled sweep
 * config, the key of every stage of every variant for one item; a change that means to re-key a stage bumps its
 * version and updates the snapshot (`npx jest -u <this file>`), saying why in the commit.
 */
const sweepsDir = join(__dirname, '..', '..', '..', 'configs', 'sweeps');
const trainItemIds = ['train-0', 'train-1', 'train-2'];

describe('stage keys of the bundled sweeps', () => {
  it.each(readdirSync(sweepsDir).filter((f) => f.endsWith('.yaml')).sort())('%s', (file) => {
    const config = parseSweepConfig(readFileSync(join(sweepsDir, file), 'utf8'), file);
    const keys: Record<string, string[]> = {};
    for (const unresolved of expandVariants(config)) {
      // The planner resolves an operating point (`theta: { recall: 0.9 }`) with the run's encoder before keying; here,
      // with no encoder, it stands for the paper's θ, so the keys are those of the same config written with θ = 13.
      const variant = resolveVariantKnobs(unresolved, Object.entries(unresolved.params).filter(([, v]) => isOperatingPoint(v))
        .map(([knob, point]) => ({ knob, point: point as OperatingPoint, value: RB_SQL_DEFAULTS.theta })));
      const pipeline = pipelines[variant.pipeline];
      const fileHashes = Object.fromEntries((pipeline.fileKnobs ?? []).map((f) => [f.sha256Param, 'f'.repeat(64)]));
      const keyer = new VariantKeyer(pipeline, variant, { datasetVersion: 'dataset-v1', cacheNamespace: config.cacheNamespace, trainItemIds, fileHashes });
      const stages = [...keyer.trainItemStages(), ...keyer.itemStages('dev-0')];
      // A graph names definitions; the registry must run each (a definition left out of its method's list would not).
      expect(stages.filter((s) => !stageImplementations[s.stage] && !isTrainSetStage(s.stage)).map((s) => s.stage)).toEqual([]);
      keys[variant.label] = stages.map((s) => `${s.stage}@${s.itemId} ${s.key.slice(0, 16)}`);
    }
    expect(keys).toMatchSnapshot();
  });
});
