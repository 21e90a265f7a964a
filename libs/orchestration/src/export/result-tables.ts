export type ExportCell = string | number | boolean | null;

/** RFC 4180 CSV: a header from the first row's keys (or `columns`), fields quoted when they need it. */
export function toCsv(rows: Array<Record<string, ExportCell>>, columns?: string[]): string {
  const cols = columns ?? (rows[0] ? Object.keys(rows[0]) : []);
  const lines = [cols.map(csvField).join(',')];
  for (const row of rows) lines.push(cols.map((c) => csvField(row[c] ?? null)).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function csvField(value: ExportCell): string {
  if (value === null) return '';
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One JSON object per line. */
export function toJsonl(rows: unknown[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}
