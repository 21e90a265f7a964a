import type { ExportFormat } from '@sqlsweep/contracts';
import type { ExportRow, ReportRepository } from '@sqlsweep/db';
import { birdPredictionFile, spiderPredictionFile, toCsv, toJsonl } from '../export';
import { ReportQueryError } from './query-error';
import { verdictCategory } from './verdict-category';

export interface ExportFile { contentType: string; filename: string; body: string }

const resultColumns = [
  'variantId', 'variantLabel', 'itemId', 'dbId', 'difficulty', 'correct', 'category', 'scorer', 'errored', 'parseFailed', 'reason', 'predictedSql', 'goldSql',
  'question', 'inputTokens', 'outputTokens', 'costUsd', 'latencyMs', 'simulated',
] as const;

function resultRecord(r: ExportRow): Record<(typeof resultColumns)[number], string | number | boolean | null> {
  return {
    variantId: r.variantId, variantLabel: r.variantLabel, itemId: r.itemId, dbId: r.dbId, difficulty: r.difficulty,
    correct: r.correct, category: verdictCategory(r), scorer: r.scorer, errored: r.errored, parseFailed: r.parseFailed, reason: r.reason, predictedSql: r.predictedSql, goldSql: r.goldSql,
    question: r.question, inputTokens: r.inputTokens, outputTokens: r.outputTokens, costUsd: r.costUsd, latencyMs: r.latencyMs,
    simulated: r.simulated,
  };
}

/**
 * Builds a download. Prediction files (spider, bird) cover one variant, in dataset order, so they pair by line with
 * a gold file of the same items; they need the run's only variant or a named one.
 */
export async function exportRun(repo: ReportRepository, runId: string, q: { format: ExportFormat; variantId?: string }): Promise<ExportFile> {
  const variants = await repo.variants(runId);
  if (q.variantId !== undefined && !variants.some((v) => v.id === q.variantId)) {
    throw new ReportQueryError('query.variantId', `variant ${q.variantId} is not part of run ${runId}`);
  }
  const base = `${runId}${q.variantId ? `-${q.variantId}` : ''}`;
  if (q.format === 'csv' || q.format === 'jsonl') {
    const rows = (await repo.exportRows(runId, q.variantId)).map(resultRecord);
    return q.format === 'csv'
      ? { contentType: 'text/csv; charset=utf-8', filename: `${base}.csv`, body: toCsv(rows, [...resultColumns]) }
      : { contentType: 'application/x-ndjson; charset=utf-8', filename: `${base}.jsonl`, body: toJsonl(rows) };
  }
  const variantId = q.variantId ?? (variants.length === 1 ? variants[0].id : undefined);
  if (!variantId) throw new ReportQueryError('query.variantId', `run ${runId} has ${variants.length} variants: a ${q.format} prediction file needs one`);
  const lines = (await repo.exportRows(runId, variantId)).map((r) => ({ sql: r.predictedSql, dbId: r.dbId }));
  return q.format === 'spider'
    ? { contentType: 'text/plain; charset=utf-8', filename: `${runId}-${variantId}.sql`, body: spiderPredictionFile(lines) }
    : { contentType: 'application/json; charset=utf-8', filename: `${runId}-${variantId}.json`, body: birdPredictionFile(lines) };
}
