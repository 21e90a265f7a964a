import type { VariantSpec } from '@sqlsweep/contracts';
import { renderSchemaDdl, type DatabaseSchema } from '@sqlsweep/datasets';
import type { LlmResponse } from '@sqlsweep/llm';
import type { MethodModule } from '../../method';
import type { PipelineDefinition, StageNode } from '../../pipeline';
import type { EstimateContext, LlmCall, LlmStage, StageContext } from '../../stage-context';
import { evidenceLine, templateCall } from '../../llm-call';
import { loadTemplate, type PromptTemplate } from '../../template';
import { parseGeneratedSql } from '../zero-shot';
import { tableLinkingMetrics } from './linking-metrics';
import { contextSection, r3RagStage, ragCorpusKnob, type RagContext } from './rag-context';
import { parseSubQuestions } from './sub-questions';
import { parseTableList } from './table-list';
import { mapToSchemaTables } from './table-mapping';
import { evaluateNode } from '../../stages/common';

export const r3Templates = {
  link: loadTemplate('r3.link'),
  decompose: loadTemplate('r3.decompose'),
  generate: loadTemplate('r3.generate'),
  generateDirect: loadTemplate('r3.generate-direct'),
};

/** Output of `r3.link`. `fallback` is true when nothing usable came back and the full schema is used instead. */
export interface LinkedTables {
  tables: string[];
  fallback: boolean;
  parseError?: string;
  mapped: Array<{ from: string; to: string; similarity: number }>;
  dropped: string[];
  metrics: Record<string, number>;
}

/** Output of `r3.decompose`. On a parse failure the original question is the only step. */
export interface SubQuestions { subQuestions: string[]; parseError?: string; metrics: Record<string, number> }

const LLM_READS = ['model', 'temperature', 'maxTokens', 'sampleIndex', 'cacheNamespace'];

/** R3: [RAG] -> [schema linking] -> [question decomposition] -> generation -> evaluate; every bracket is a knob. */
export const r3Pipeline: PipelineDefinition = {
  name: 'r3',
  graph: (variant: VariantSpec): StageNode[] => {
    const p = variant.params;
    const ragInto = (flag: string) => p.rag === true && p[flag] === true;
    const rag = ragInto('ragInLinking') || ragInto('ragInDecomposition') || ragInto('ragInGeneration');
    const withRag = (flag: string): Record<string, string> => (ragInto(flag) ? { rag: 'r3.rag' } : {});
    const link: Record<string, string> = p.schemaLinking === true ? { link: 'r3.link' } : {};
    const nodes: StageNode[] = [{ stage: 'gold', role: 'sql', version: 1, reads: [], inputs: {} }];
    if (rag) nodes.push({ stage: 'r3.rag', role: 'retrieval', version: 1, reads: ['ragCorpus', ragCorpusKnob.sha256Param, 'ragChunkTokens', 'ragBudgetTokens'], inputs: {} });
    if (p.schemaLinking === true) {
      nodes.push({ stage: 'r3.link', role: 'llm', version: 1, reads: [...LLM_READS, 'linkMatchThreshold'], inputs: withRag('ragInLinking'), template: r3Templates.link });
    }
    const decompose = p.decomposition === true;
    if (decompose) {
      nodes.push({ stage: 'r3.decompose', role: 'llm', version: 1, reads: LLM_READS, inputs: { ...link, ...withRag('ragInDecomposition') }, template: r3Templates.decompose });
    }
    const generate = decompose ? 'r3.generate' : 'r3.generate-direct';
    nodes.push({
      stage: generate, role: 'llm', version: 1, reads: LLM_READS,
      inputs: { ...link, ...(decompose ? { decomposition: 'r3.decompose' } : {}), ...withRag('ragInGeneration') },
      template: decompose ? r3Templates.generate : r3Templates.generateDirect,
    });
    nodes.push(evaluateNode(generate));
    return nodes;
  },
  fileKnobs: [ragCorpusKnob],
};

/** The schema the later stages see: the linked tables, or every table without linking or after a fallback. */
export function linkedSchemaDdl(schema: DatabaseSchema, link: LinkedTables | undefined): string {
  if (!link || link.fallback) return renderSchemaDdl(schema);
  const keep = new Set(link.tables);
  return renderSchemaDdl({ ...schema, tables: schema.tables.filter((t) => keep.has(t.name)) });
}

type Inputs = Partial<{ rag: RagContext; link: LinkedTables; decomposition: SubQuestions }>;
const inputsOf = (ctx: EstimateContext): Inputs => ('inputs' in ctx ? (ctx as StageContext).inputs as Inputs : {});

function linkPrompt(ctx: EstimateContext): LlmCall {
  const { rag } = inputsOf(ctx);
  return templateCall(ctx, r3Templates.link, {
    context: contextSection(rag), schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
  }, 20);
}

export function parseLinkAnswer(output: string, ctx: Pick<StageContext, 'schema' | 'item' | 'params'>): LinkedTables {
  const all = ctx.schema.tables.map((t) => t.name);
  const parsed = parseTableList(output);
  const mapping = parsed.ok ? mapToSchemaTables(parsed.names, all, Number(ctx.params.linkMatchThreshold)) : { tables: [], mapped: [], dropped: [] };
  const fallback = mapping.tables.length === 0;
  const parseError = parsed.ok ? (fallback ? 'no named table matched the schema' : undefined) : parsed.error;
  const used = fallback ? all : mapping.tables;
  return {
    ...mapping, tables: used, fallback, ...(parseError ? { parseError } : {}),
    metrics: { ...tableLinkingMetrics(used, ctx.item.goldSql, ctx.schema), 'linking.fallback': fallback ? 1 : 0, 'linking.dropped': mapping.dropped.length },
  };
}

export const r3Link: LlmStage = {
  kind: 'llm',
  prompt: linkPrompt,
  estimate: linkPrompt,
  parse: (response: LlmResponse, ctx) => parseLinkAnswer(response.output, ctx),
};

function decomposePrompt(ctx: EstimateContext): LlmCall {
  const { rag, link } = inputsOf(ctx);
  return templateCall(ctx, r3Templates.decompose, {
    context: contextSection(rag), schema: linkedSchemaDdl(ctx.schema, link), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
  }, 80);
}

export function parseDecomposition(output: string, question: string): SubQuestions {
  const parsed = parseSubQuestions(output);
  const subQuestions = parsed.ok ? parsed.subQuestions : [question];
  return { subQuestions, ...(parsed.ok ? {} : { parseError: parsed.error }), metrics: { 'decomposition.subQuestions': parsed.ok ? subQuestions.length : 0 } };
}

export const r3Decompose: LlmStage = {
  kind: 'llm',
  prompt: decomposePrompt,
  estimate: decomposePrompt,
  parse: (response: LlmResponse, ctx) => parseDecomposition(response.output, ctx.item.question),
};

function generatePrompt(template: PromptTemplate) {
  return (ctx: EstimateContext): LlmCall => {
    const { rag, link, decomposition } = inputsOf(ctx);
    const steps = decomposition?.subQuestions ?? [ctx.item.question];
    const context = contextSection(rag);
    return templateCall(ctx, template, {
      schema: linkedSchemaDdl(ctx.schema, link), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
      sub_questions: steps.map((s, i) => `${i + 1}. ${s}`).join('\n'), context: context ? `\n${context.trimEnd()}` : '',
    }, 60);
  };
}

const generateStage = (template: PromptTemplate): LlmStage => ({
  kind: 'llm',
  prompt: generatePrompt(template),
  estimate: generatePrompt(template),
  parse: (response: LlmResponse) => parseGeneratedSql(response.output),
});

export const r3Method: MethodModule = {
  pipelines: { r3: r3Pipeline },
  stages: {
    'r3.rag': r3RagStage,
    'r3.link': r3Link,
    'r3.decompose': r3Decompose,
    'r3.generate': generateStage(r3Templates.generate),
    'r3.generate-direct': generateStage(r3Templates.generateDirect),
  },
};
