import type { VariantSpec } from '@sqlsweep/contracts';
import type { MethodModule } from '../../method';
import type { PipelineDefinition, StageNode } from '../../pipeline';
import type { StageImplementation } from '../../stage-context';
import { checkStage, correctStage, correctTemplate } from './correction';
import { decomposeShotStage, decomposeTemplate } from './organize';
import { decompositionInput, generatePlainStage, generatePlainTemplate, generateStage, generateTemplate } from './generate';
import { retrieveColumnsStage, retrieveTablesStage } from './schema-filter';
import { selectShotsStage } from './shots';
import { evaluateNode } from '../../stages/common';

/** Stages registered for the largest grid values (libs/contracts/src/pipelines/rb-sql.ts caps the knobs at these). */
export const RB_SQL_MAX_SHOTS = 8;
export const RB_SQL_MAX_CORRECTIONS = 8;

const LLM_READS = ['model', 'temperature', 'sampleIndex', 'cacheNamespace'];

/**
 * RB-SQL as a static stage graph per variant: TR -> CR (schema filter), SR (shots), a decomposition per shot
 * (skeleton organization), generation, then check/correct rounds unrolled to maxCorrections. Each stage reads only
 * the knobs that change its output, so variants share every stage their knobs agree on.
 */
export function rbSqlGraph(variant: VariantSpec): StageNode[] {
  const p = variant.params;
  const shots = Number(p.shots);
  const filter = p.schemaFilter === true;
  const organized = p.skeletonOrganization === true;
  const rounds = p.errorCorrection === true ? Number(p.maxCorrections) : 0;
  const nodes: StageNode[] = [{ stage: 'gold', role: 'sql', version: 1, reads: [], inputs: {} }];
  const schemaInput: Record<string, string> = filter ? { schema: 'rb-sql.columns' } : {};
  if (filter) {
    nodes.push(
      { stage: 'rb-sql.tables', role: 'retrieval', version: 1, reads: ['theta', 'muPrime', 'maxTableTokens'], inputs: {} },
      { stage: 'rb-sql.columns', role: 'retrieval', version: 1, reads: ['mu'], inputs: { tables: 'rb-sql.tables' } },
    );
  }
  const generateInputs: Record<string, string> = { ...schemaInput };
  if (shots > 0) {
    const selection = String(p.shotSelection);
    nodes.push({
      stage: 'rb-sql.shots', role: 'retrieval', version: 1,
      reads: selection === 'random' ? ['shots', 'shotSelection', 'sampleIndex'] : ['shots', 'shotSelection'], inputs: {},
    });
    generateInputs.shots = 'rb-sql.shots';
    if (organized) {
      for (let i = 1; i <= shots; i++) {
        nodes.push({ stage: `rb-sql.decompose-${i}`, role: 'llm', version: 1, reads: LLM_READS, inputs: { shots: 'rb-sql.shots' }, template: decomposeTemplate });
        generateInputs[decompositionInput(i)] = `rb-sql.decompose-${i}`;
      }
    }
  }
  const generate = organized ? 'rb-sql.generate' : 'rb-sql.generate-plain';
  nodes.push({ stage: generate, role: 'llm', version: 1, reads: [...LLM_READS, 'maxTokens'], inputs: generateInputs, template: organized ? generateTemplate : generatePlainTemplate });
  let last = generate;
  for (let r = 1; r <= rounds; r++) {
    nodes.push(
      { stage: `rb-sql.check-${r}`, role: 'sql', version: 1, reads: [], inputs: { previous: last } },
      {
        stage: `rb-sql.correct-${r}`, role: 'llm', version: 1,
        // Only a filtered schema can be swapped for the full one, so only then does the swap round matter.
        reads: [...LLM_READS, 'maxTokens', ...(filter ? ['fullSchemaAfter'] : [])],
        inputs: { check: `rb-sql.check-${r}`, ...schemaInput }, template: correctTemplate,
      },
    );
    last = `rb-sql.correct-${r}`;
  }
  nodes.push(evaluateNode(last));
  return nodes;
}

export const rbSqlPipeline: PipelineDefinition = {
  name: 'rb-sql',
  graph: rbSqlGraph,
  // rb-sql.shots fails an item when the train split offers fewer than k candidates.
  datasetNeeds: (v) => (Number(v.params.shots) > 0 ? [{ knob: 'shots', value: v.params.shots, trainItems: Number(v.params.shots) }] : []),
};

function rbSqlStages(): Record<string, StageImplementation> {
  const stages: Record<string, StageImplementation> = {
    'rb-sql.tables': retrieveTablesStage,
    'rb-sql.columns': retrieveColumnsStage,
    'rb-sql.shots': selectShotsStage,
    'rb-sql.generate': generateStage,
    'rb-sql.generate-plain': generatePlainStage,
  };
  for (let i = 1; i <= RB_SQL_MAX_SHOTS; i++) stages[`rb-sql.decompose-${i}`] = decomposeShotStage(i - 1);
  for (let r = 1; r <= RB_SQL_MAX_CORRECTIONS; r++) {
    stages[`rb-sql.check-${r}`] = checkStage;
    stages[`rb-sql.correct-${r}`] = correctStage(r);
  }
  return stages;
}

export const rbSqlMethod: MethodModule = { pipelines: { 'rb-sql': rbSqlPipeline }, stages: rbSqlStages() };
export { sqlValues, parseSubQuestions, renderShot } from './organize';
export { parseChainSql } from './generate';
export { classifySqliteError } from './correction';
export type * from './types';
