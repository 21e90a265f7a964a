import { renderSchemaDdl, type DatabaseSchema } from '@sqlsweep/datasets';
import { definePipeline } from '../../define-pipeline';
import { from, optionalSlot, stagesOf } from '../../define-stage';
import { evidenceLine } from '../../llm-call';
import type { MethodModule } from '../../method';
import type { StageItem } from '../../stage-context';
import { evaluateStage, goldStage } from '../../stages/common';
import { loadTemplate } from '../../template';
import { parseFinalSql } from '../../parse-sql';
import { tableLinkingMetrics } from './linking-metrics';
import { contextSection, r3RagStage, ragCorpusKnob, type RagContext, type RagCorpusHash } from './rag-context';
import { parseSubQuestions } from './sub-questions';
import { parseTableList } from './table-list';
import { mapToSchemaTables } from './table-mapping';

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

const r3 = stagesOf('r3');

/** The schema the later stages see: the linked tables, or every table without linking or after a fallback. */
export function linkedSchemaDdl(schema: DatabaseSchema, link: LinkedTables | undefined): string {
  if (!link || link.fallback) return renderSchemaDdl(schema);
  const keep = new Set(link.tables);
  return renderSchemaDdl({ ...schema, tables: schema.tables.filter((t) => keep.has(t.name)) });
}

export function parseLinkAnswer(output: string, ctx: { schema: DatabaseSchema; item: StageItem; params: { linkMatchThreshold: number } }): LinkedTables {
  const all = ctx.schema.tables.map((t) => t.name);
  const parsed = parseTableList(output);
  const mapping = parsed.ok ? mapToSchemaTables(parsed.names, all, ctx.params.linkMatchThreshold) : { tables: [], mapped: [], dropped: [] };
  const fallback = mapping.tables.length === 0;
  const parseError = parsed.ok ? (fallback ? 'no named table matched the schema' : undefined) : parsed.error;
  const used = fallback ? all : mapping.tables;
  return {
    ...mapping, tables: used, fallback, ...(parseError ? { parseError } : {}),
    metrics: { ...tableLinkingMetrics(used, ctx.item.goldSql, ctx.schema), 'linking.fallback': fallback ? 1 : 0, 'linking.dropped': mapping.dropped.length },
  };
}

// Every R3 prompt is estimated as it renders without its inputs: no RAG context, the full schema, the question alone.

export const r3Link = r3.llm({
  name: 'r3.link', version: 2, template: r3Templates.link, reads: ['linkMatchThreshold'], expectedOutputTokens: 20,
  inputs: { rag: optionalSlot<RagContext>() },
  render: (ctx, inputs) => ({
    context: contextSection(inputs?.rag), schema: renderSchemaDdl(ctx.schema), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
  }),
  parse: (response, ctx) => parseLinkAnswer(response.output, ctx),
});

export function parseDecomposition(output: string, question: string): SubQuestions {
  const parsed = parseSubQuestions(output);
  const subQuestions = parsed.ok ? parsed.subQuestions : [question];
  return { subQuestions, ...(parsed.ok ? {} : { parseError: parsed.error }), metrics: { 'decomposition.subQuestions': parsed.ok ? subQuestions.length : 0 } };
}

export const r3Decompose = r3.llm({
  name: 'r3.decompose', version: 2, template: r3Templates.decompose, expectedOutputTokens: 80,
  inputs: { link: optionalSlot<LinkedTables>(), rag: optionalSlot<RagContext>() },
  render: (ctx, inputs) => ({
    context: contextSection(inputs?.rag), schema: linkedSchemaDdl(ctx.schema, inputs?.link), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
  }),
  parse: (response, ctx) => parseDecomposition(response.output, ctx.item.question),
});

/** The RAG context as the generation prompts place it: under the question section. */
function generationContext(rag: RagContext | undefined): string {
  const context = contextSection(rag);
  return context ? `\n${context.trimEnd()}` : '';
}

/**
 * Generation from the sub-questions of `r3.decompose`. As in the paper (R3 3.1), the question section holds the
 * sub-questions only, never the original question; without a decomposition (estimates, or a parse failure) the
 * question is the only step.
 */
export const r3Generate = r3.llm({
  name: 'r3.generate', version: 2, template: r3Templates.generate, expectedOutputTokens: 60,
  inputs: { link: optionalSlot<LinkedTables>(), decomposition: from(r3Decompose), rag: optionalSlot<RagContext>() },
  render: (ctx, inputs) => ({
    schema: linkedSchemaDdl(ctx.schema, inputs?.link), evidence_line: evidenceLine(ctx.item),
    sub_questions: (inputs?.decomposition?.subQuestions ?? [ctx.item.question]).map((s, i) => `${i + 1}. ${s}`).join('\n'),
    context: generationContext(inputs?.rag),
  }),
  parse: (response) => parseFinalSql(response.output),
});

/** Generation without decomposition (Table 3's No QD): the original question in place of the sub-questions. */
export const r3GenerateDirect = r3.llm({
  name: 'r3.generate-direct', version: 2, template: r3Templates.generateDirect, expectedOutputTokens: 60,
  inputs: { link: optionalSlot<LinkedTables>(), rag: optionalSlot<RagContext>() },
  render: (ctx, inputs) => ({
    schema: linkedSchemaDdl(ctx.schema, inputs?.link), evidence_line: evidenceLine(ctx.item), question: ctx.item.question,
    context: generationContext(inputs?.rag),
  }),
  parse: (response) => parseFinalSql(response.output),
});

/** R3: [RAG] -> [schema linking] -> [question decomposition] -> generation -> evaluate; every bracket is a knob. */
export const r3Pipeline = definePipeline<'r3', RagCorpusHash>('r3', {
  graph: (g, { params: p }) => {
    const ragInLinking = p.rag && p.ragInLinking;
    const ragInDecomposition = p.rag && p.ragInDecomposition;
    const ragInGeneration = p.rag && p.ragInGeneration;
    g.add(goldStage);
    const rag = ragInLinking || ragInDecomposition || ragInGeneration ? g.add(r3RagStage) : undefined;
    const link = p.schemaLinking ? g.add(r3Link, { rag: ragInLinking ? rag : undefined }) : undefined;
    const generateRag = ragInGeneration ? rag : undefined;
    const decomposed = p.decomposition ? g.add(r3Decompose, { link, rag: ragInDecomposition ? rag : undefined }) : undefined;
    const generated = decomposed ? g.add(r3Generate, { link, rag: generateRag }) : g.add(r3GenerateDirect, { link, rag: generateRag });
    g.add(evaluateStage, { prediction: generated });
  },
  fileKnobs: [ragCorpusKnob],
});

export const r3Method: MethodModule = {
  pipelines: { r3: r3Pipeline },
  stages: [r3RagStage, r3Link, r3Decompose, r3Generate, r3GenerateDirect],
};
