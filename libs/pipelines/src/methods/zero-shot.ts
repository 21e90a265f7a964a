import { renderSchemaDdl } from '@sqlsweep/datasets';
import { definePipeline } from '../define-pipeline';
import { stagesOf } from '../define-stage';
import { parseFinalSql } from '../parse-sql';
import { evidenceLine } from '../llm-call';
import { loadTemplate } from '../template';
import type { MethodModule } from '../method';
import { evaluateStage, goldStage, type GeneratedSql } from '../stages/common';

/**
 * Zero-shot generation: schema as DDL + question -> SQL. Other pipelines that need a plain first draft (UCS-SQL's
 * DAIL selection) use this very stage, so a draft is computed once for every pipeline at the same model,
 * temperature and token limit.
 */
export const zeroShotGenerate = stagesOf('zero-shot').llm({
  name: 'zero-shot.generate', version: 2, template: loadTemplate('zero-shot.generate'), expectedOutputTokens: 60,
  render: (ctx) => ({ schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question }),
  parse: (response): GeneratedSql => parseFinalSql(response.output),
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
