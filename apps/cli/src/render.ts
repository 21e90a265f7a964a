import type { LeaderboardRowDto } from '@sqlsweep/contracts';
import type { ResolvedKnobRecord, RunListRow, RunRow, StageProgress } from '@sqlsweep/db';
import type { PlannedSweep } from '@sqlsweep/orchestration';

/** Bytes in B, KiB, MiB, GiB or TiB (one decimal above a KiB). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export function renderPlan(plan: PlannedSweep): string {
  const out = [
    `sweep ${plan.config.name} (${plan.source}) on ${plan.version.datasetName}@${plan.version.contentHash.slice(0, 12)} ${plan.config.split}: ${plan.items.length} items x ${plan.variants.length} variants${plan.simulated ? '  [simulated]' : ''}`,
    '',
    table(['variant', 'pipeline', 'model'], plan.variants.map((v) => [v.label, v.pipeline, v.model])),
    '',
    table(['stage', 'role', 'jobs needed', 'reused', 'LLM calls', 'est. tokens in', 'est. tokens out', 'est. $'], [
      ...plan.byStage.map((s) => [s.stage, s.role, s.needed, s.reused, s.llmCalls, s.inputTokens, s.outputTokens, s.costUsd.toFixed(4)]),
      ['total', '', plan.stageJobs, plan.reused, plan.estimate.llmCalls, plan.estimate.inputTokens, plan.estimate.outputTokens, plan.estimate.costUsd.toFixed(4)],
    ]),
    `LLM calls needed: ${plan.llmCalls}, estimated $${plan.estimate.costUsd.toFixed(4)}${plan.config.cacheNamespace ? ` (cache namespace "${plan.config.cacheNamespace}")` : ''}`,
    ...renderResolvedKnobs(plan.variants),
  ];
  return out.join('\n');
}

/**
 * One line per threshold operating point and the threshold it resolved to (`sqlsweep run --dry-run`, `sqlsweep status`):
 * `rb-sql sim-strong: theta = recall@0.9 → 4.5 (recall 0.912, reduction 0.410; sqlsweep-ngram-colbert, 75 items)`.
 */
export function renderResolvedKnobs(variants: ReadonlyArray<{ label: string; resolvedKnobs: readonly ResolvedKnobRecord[] }>): string[] {
  const lines = variants.flatMap((v) => v.resolvedKnobs.map((k) => {
    const point = 'recall' in k.point ? `recall@${k.point.recall}` : `reduction@${k.point.reduction}`;
    return `  ${v.label}: ${k.knob} = ${point} → ${k.value} (recall ${k.recall.toFixed(3)}, reduction ${k.reduction.toFixed(3)}; ${k.curve.encoder}, ${k.curve.items} items)`;
  }));
  return lines.length ? ['operating points resolved on this dataset and encoder:', ...lines] : [];
}

/** The rows of `leaderboard` (libs/orchestration reports), the ones GET /api/runs/{runId}/leaderboard returns, as text. */
export function renderLeaderboard(rows: LeaderboardRowDto[]): string {
  const simulated = rows.some((r) => r.simulated);
  return [
    `Leaderboard${simulated ? '  [simulated: answers come from the LLM simulator, not a real model]' : ''}`,
    table(['variant', 'EX %', 'scorer', 'correct', 'parse failures', 'items', 'errors', 'tokens in', 'tokens out', 'cost $', 'ms/item'], rows.map((r) => [
      r.label, r.ex.toFixed(1), r.scorer ?? '-', r.correct, r.parseFailures, r.items, r.errors, r.inputTokens, r.outputTokens, r.costUsd.toFixed(4), r.meanLatencyMs.toFixed(0),
    ])),
  ].join('\n');
}

export function renderRunList(runs: RunListRow[]): string {
  return table(['run', 'sweep', 'status', 'items', 'created'], runs.map((r) => [r.id, r.sweepName + (r.simulated ? ' [simulated]' : ''), r.status, r.itemCount, r.createdAt.toISOString()]));
}

export function renderCost(run: RunRow, spent: { llmCalls: number; inputTokens: number; outputTokens: number; costUsd: number }): string {
  return table(['cost', 'LLM calls', 'tokens in', 'tokens out', '$'], [
    ['estimated before the run', run.estimated_llm_calls, Number(run.estimated_input_tokens), Number(run.estimated_output_tokens), run.estimated_cost_usd.toFixed(4)],
    ['spent by this run', spent.llmCalls, Number(spent.inputTokens), Number(spent.outputTokens), spent.costUsd.toFixed(4)],
  ]);
}

export function renderProgress(progress: StageProgress[]): string {
  return table(['stage', 'done', 'failed', 'planned'], progress.map((p) => [p.stage, p.done, p.failed, p.planned]));
}
