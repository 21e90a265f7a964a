const pad = (s: string): string => s.padEnd(20);

export interface BreakdownRow {
  level: string;
  count: number;
  /** Fraction correct (0..1) or score, per level. */
  score: number;
}

/** The per-difficulty table test-suite-sql-eval prints for `--etype exec` (scores as fractions, 3 decimals). */
export function spiderSummaryTable(rows: BreakdownRow[], title = 'EXECUTION ACCURACY', label = 'execution'): string {
  return [
    `${pad('')} ${rows.map((r) => pad(r.level)).join(' ')}`,
    `${pad('count')} ${rows.map((r) => pad(String(r.count))).join(' ')}`,
    `=====================   ${title.padEnd(22)} =====================`,
    `${pad(label)} ${rows.map((r) => pad(r.score.toFixed(3))).join(' ')}`,
  ].join('\n');
}

/** The table BIRD's evaluation scripts print (scores in percent, 2 decimals). */
export function birdSummaryTable(rows: BreakdownRow[], title = 'ACCURACY', label = 'accuracy'): string {
  return [
    `${pad('')} ${rows.map((r) => pad(r.level)).join(' ')}`,
    `${pad('count')} ${rows.map((r) => pad(String(r.count))).join(' ')}`,
    `======================================    ${title}    =====================================`,
    `${pad(label)} ${rows.map((r) => pad(r.score.toFixed(2))).join(' ')}`,
  ].join('\n');
}

/** Groups item scores by level in the given order, with a final total; levels without items are kept at 0. */
export function breakdown(items: Array<{ level?: string; score: number }>, levels: string[], totalLabel: string, scale = 1): BreakdownRow[] {
  const rows = levels.map((level) => {
    const mine = items.filter((i) => i.level === level);
    return { level, count: mine.length, score: mine.length ? (scale * mine.reduce((a, b) => a + b.score, 0)) / mine.length : 0 };
  });
  const total = items.length ? (scale * items.reduce((a, b) => a + b.score, 0)) / items.length : 0;
  return [...rows, { level: totalLabel, count: items.length, score: total }];
}
