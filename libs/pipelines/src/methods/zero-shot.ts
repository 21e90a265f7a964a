import { renderSchemaDdl } from '@sqlsweep/datasets';
import { definePipeline } from '../define-pipeline';
import { stagesOf } from '../define-stage';
import { parseSqlAnswer } from '../parse-sql';
import { evidenceLine } from '../llm-call';
import { loadTemplate } from '../template';
import type { MethodModule } from '../method';
import { evaluateStage, goldStage, type GeneratedSql } from '../stages/common';

/** Parses the answer into one SQL query; an answer without one is a recorded parse error, not a failure. */
export function parseGeneratedSql(output: string): GeneratedSql {
  const parsed = parseSqlAnswer(output);
  return parsed.ok ? { sql: parsed.sql } : { sql: null, parseError: parsed.error };
}

/**
 * Zero-shot generation: schema as DDL + question -> SQL. Other pipelines that need a plain first draft (UCS-SQL's
 * DAIL selection) use this very stage, so a draft is computed once for every pipeline at the same model,
 * temperature and token limit.
 */
export const zeroShotGenerate = stagesOf('zero-shot').llm({
  name: 'zero-shot.generate', version: 1, template: loadTemplate('zero-shot.generate'), expectedOutputTokens: 60,
  render: (ctx) => ({ schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question }),
  parse: (response) => parseGeneratedSql(response.output),
});

/** Zero-shot baseline: generate, execute, compare with gold. */
export const zeroShotPipeline = definePipeline('zero-shot', {
  graph: (g) => {
    g.add(goldStage);
    g.add(evaluateStage, { prediction: g.add(zeroShotGenerate) });
  },
});

export const zeroShotMethod: MethodModule = {
  pipelines: { 'zero-shot': zeroShotPipeline },
  stages: [zeroShotGenerate],
};
