import { expandEntryVariants, SweepConfigError, type SweepConfig } from '@sqlsweep/contracts';
import { pipelines } from '@sqlsweep/pipelines';

export interface DatasetFacts {
  name: string;
  /** Content hash of the version, shortened in messages. */
  version: string;
  trainItems: number;
}

/**
 * Refuses a sweep whose dataset version lacks what a variant needs (`PipelineDefinition.datasetNeeds`, e.g. a
 * train split for shots), naming the pipeline entry, the knob and the dataset; otherwise every job of that variant
 * would fail at run time. Call it after admission: it expands the variants.
 */
export function checkDatasetNeeds(config: SweepConfig, source: string, dataset: DatasetFacts): void {
  config.pipelines.forEach((entry, index) => {
    const needsOf = pipelines[entry.pipeline].datasetNeeds;
    if (!needsOf) return;
    for (const variant of expandEntryVariants(config, entry)) {
      for (const need of needsOf(variant)) {
        if (dataset.trainItems >= need.trainItems) continue;
        throw new SweepConfigError(source, `pipelines[${index}].grid.${need.knob}`,
          `${entry.pipeline} with ${need.knob}=${String(need.value)} needs at least ${need.trainItems} item${need.trainItems === 1 ? '' : 's'} in the train split, ` +
          `but dataset "${dataset.name}" (version ${dataset.version.slice(0, 12)}) has ${dataset.trainItems}` +
          (dataset.trainItems === 0 ? ' (register it from a folder with train data, or sweep this knob at 0)' : ''));
      }
    }
  });
}
