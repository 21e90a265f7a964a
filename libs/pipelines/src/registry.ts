import { pipelineNames, type PipelineName } from '@sqlsweep/contracts';
import type { AnyStage } from './define-stage';
import type { MethodModule } from './method';
import { zeroShotMethod } from './methods/zero-shot';
import { rbSqlMethod } from './methods/rb-sql';
import { r3Method } from './methods/r3';
import { baselinesMethod } from './methods/baselines';
import { drChainMethod } from './methods/dr-chain';
import type { PipelineDefinition } from './pipeline';
import type { StageImplementation } from './stage-context';
import { evaluateStage, goldStage } from './stages/common';
import { ucsSqlMethod } from './methods/ucs-sql';

/** Every method. A method adds one import and one entry here. */
const methods: MethodModule[] = [
  rbSqlMethod,
  ucsSqlMethod,
  r3Method,
  baselinesMethod,
  drChainMethod,
  zeroShotMethod,
];

function collect<T>(part: (m: MethodModule) => Record<string, T>, what: string, base: Record<string, T> = {}): Record<string, T> {
  const all: Record<string, T> = { ...base };
  for (const m of methods) {
    for (const [name, value] of Object.entries(part(m))) {
      if (name in all) throw new Error(`two methods define the ${what} "${name}"`);
      all[name] = value;
    }
  }
  return all;
}

export const pipelines = collect((m) => m.pipelines, 'pipeline') as Record<PipelineName, PipelineDefinition>;

const byName = (stages: readonly AnyStage[]): Record<string, StageImplementation> => Object.fromEntries(stages.map((s) => [s.name, s.implementation]));

/** Every stage name the system knows, with the code that computes it. */
export const stageImplementations: Record<string, StageImplementation> = collect((m) => byName(m.stages), 'stage', byName([goldStage, evaluateStage]));

const unimplemented = pipelineNames.filter((n) => !(n in pipelines));
if (unimplemented.length) throw new Error(`pipelines with a grid but no implementation: ${unimplemented.join(', ')}`);
