import { renderSchemaDdl } from '@sqlsweep/datasets';
import type { PipelineDefinition, StageNode } from '../pipeline';
import { parseSqlAnswer } from '../parse-sql';
import type { StageImplementation } from '../stage-context';
import { loadTemplate, renderTemplate } from '../template';
import type { GeneratedSql } from './common';

const template = loadTemplate('zero-shot.generate');

/** Zero-shot baseline: schema as DDL + question -> SQL -> execute -> compare with gold. */
export const zeroShotPipeline: PipelineDefinition = {
  name: 'zero-shot',
  graph: (): StageNode[] => [
    { stage: 'gold', role: 'sql', version: 1, reads: [], inputs: {} },
    { stage: 'zero-shot.generate', role: 'llm', version: 1, reads: ['model', 'temperature', 'maxTokens', 'sampleIndex'], inputs: {}, template },
    { stage: 'evaluate', role: 'sql', version: 1, reads: [], inputs: { gold: 'gold', prediction: 'zero-shot.generate' }, final: true },
  ],
};

export const zeroShotGenerate: StageImplementation = async (ctx) => {
  const messages = renderTemplate(template, {
    schema: renderSchemaDdl(ctx.schema),
    evidence_line: ctx.item.evidence ? `Evidence: ${ctx.item.evidence}\n` : '',
    question: ctx.item.question,
  });
  const response = await ctx.services.llm.complete({
    model: String(ctx.params.model),
    messages,
    temperature: Number(ctx.params.temperature),
    maxTokens: Number(ctx.params.maxTokens),
    sampleIndex: Number(ctx.params.sampleIndex),
    templateVersion: template.hash,
    priority: ctx.priority,
  });
  const parsed = parseSqlAnswer(response.output);
  const output: GeneratedSql = parsed.ok ? { sql: parsed.sql } : { sql: null, parseError: parsed.error };
  return {
    output,
    usage: response.usage,
    costUsd: response.costUsd,
    latencyMs: response.latencyMs,
    simulated: response.simulated,
    trace: { prompt: messages, response: response.output, ...(parsed.ok ? {} : { error: parsed.error }) },
  };
};
