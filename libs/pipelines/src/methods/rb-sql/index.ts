import type { Producing } from '../../define-stage';
import { definePipeline } from '../../define-pipeline';
import type { MethodModule } from '../../method';
import { evaluateStage, goldStage } from '../../stages/common';
import { correctionRounds } from './correction';
import { decomposeStages } from './organize';
import { generatePlainStage, generateStage } from './generate';
import { retrieveColumnsStage, retrieveTablesStage } from './schema-filter';
import { selectShotsStage } from './shots';
import type { ChainSql } from './types';

/**
 * RB-SQL as a static stage graph per variant: TR -> CR (schema filter), SR (shots), a decomposition per shot
 * (skeleton organization), generation, then check/correct rounds unrolled to maxCorrections. Each stage reads only
 * the knobs that change its output, so variants share every stage their knobs agree on.
 */
export const rbSqlPipeline = definePipeline('rb-sql', {
  graph: (g, { params: p }) => {
    g.add(goldStage);
    const schema = p.schemaFilter ? g.add(retrieveColumnsStage, { tables: g.add(retrieveTablesStage) }) : undefined;
    // Only the random selection draws with the sample index; skeleton and fixed shots are the same for every sample.
    const shots = p.shots > 0 ? g.add(selectShotsStage, {}, p.shotSelection === 'random' ? {} : { without: ['sampleIndex'] }) : undefined;
    const decompositions = shots && p.skeletonOrganization ? decomposeStages.slice(0, p.shots).map((d) => g.add(d)) : [];
    let last: Producing<ChainSql> = p.skeletonOrganization
      ? g.add(generateStage, { schema, shots, decomposition: decompositions })
      : g.add(generatePlainStage, { schema, shots });
    const rounds = p.errorCorrection ? p.maxCorrections : 0;
    for (const { check, correct } of correctionRounds.slice(0, rounds)) {
      g.add(check, { previous: last });
      // Only a filtered schema can be swapped for the full one, so only then does the swap round matter.
      last = g.add(correct, { schema }, schema ? {} : { without: ['fullSchemaAfter'] });
    }
    g.add(evaluateStage, { prediction: last });
  },
  // rb-sql.shots fails an item when the train split offers fewer than k candidates.
  datasetNeeds: ({ params: p }) => (p.shots > 0 ? [{ knob: 'shots', value: p.shots, trainItems: p.shots }] : []),
});

export const rbSqlMethod: MethodModule = {
  pipelines: { 'rb-sql': rbSqlPipeline },
  stages: [
    retrieveTablesStage, retrieveColumnsStage, selectShotsStage, ...decomposeStages, generateStage, generatePlainStage,
    ...correctionRounds.flatMap(({ check, correct }) => [check, correct]),
  ],
};
export { sqlValues, parseSubQuestions, renderShot } from './organize';
export { parseChainSql } from './generate';
export { classifySqliteError } from './correction';
export type * from './types';
