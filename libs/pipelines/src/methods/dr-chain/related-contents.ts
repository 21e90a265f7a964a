import type { DatabaseSchema } from '@sqlsweep/datasets';
import type { ExecutionResult, SandboxPool, SqlValue } from '@sqlsweep/sql-sandbox';
import { touchedSchema, type TouchedSchema } from '../../sql/touched';

/** Phrases of the question that look like values: quoted text, numbers, and capitalised names after the first word. */
export function questionValues(question: string): string[] {
  const found = new Set<string>();
  for (const m of question.matchAll(/"([^"]+)"|(?<!\w)'([^']{2,})'(?!\w)/g)) found.add((m[1] ?? m[2])!.trim());
  for (const m of question.matchAll(/\b\d+(?:\.\d+)?\b/g)) found.add(m[0]);
  // Quoted phrases are already taken whole; a comma stands in for them so names on either side stay apart.
  const unquoted = question.replace(/"[^"]+"|(?<!\w)'[^']{2,}'(?!\w)/g, ' , ');
  const words = unquoted.split(/\s+|(?=[?.,!;:()])|(?<=[?.,!;:()])/).filter(Boolean);
  let run: string[] = [];
  const flush = () => {
    if (run.length) found.add(run.join(' '));
    run = [];
  };
  words.forEach((w, i) => (i > 0 && /^[A-Z][\w'-]*$/.test(w) ? run.push(w) : flush()));
  flush();
  return [...found].filter((v) => v.length > 0).slice(0, 6);
}

const quoteId = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteText = (text: string) => `'${text.replace(/'/g, "''")}'`;

function renderValue(v: SqlValue): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

export interface RelatedContentsOptions {
  sandbox: SandboxPool;
  dbPath: string;
  deadlineMs: number;
  /** distinct values shown per touched column */
  valuesPerColumn: number;
}

async function column(opts: RelatedContentsOptions, sql: string): Promise<SqlValue[]> {
  const r: ExecutionResult = await opts.sandbox.execute({ dbPath: opts.dbPath, sql, deadlineMs: opts.deadlineMs });
  return r.status === 'ok' ? r.rows.map((row) => row[0]!) : [];
}

/**
 * DR-Chain's related database contents (3.2.1 (3)): for every column the previous SQL touches, a few of its distinct
 * values; and for every value-like phrase of the question, the text columns of the touched tables that contain it.
 */
export async function relatedContents(
  sql: string | null,
  question: string,
  schema: DatabaseSchema,
  opts: RelatedContentsOptions,
): Promise<{ text: string; touched: TouchedSchema }> {
  const touched: TouchedSchema = sql ? touchedSchema(sql, schema) : { tables: [], columns: [] };
  const lines: string[] = [];
  if (opts.valuesPerColumn > 0) {
    for (const { table, column: name } of touched.columns) {
      const values = await column(opts, `SELECT DISTINCT ${quoteId(name)} FROM ${quoteId(table)} WHERE ${quoteId(name)} IS NOT NULL LIMIT ${opts.valuesPerColumn}`);
      lines.push(`${table}.${name}: ${values.length ? values.map(renderValue).join(', ') : '(no values)'}`);
    }
  }
  const phrases = questionValues(question);
  const textColumns = schema.tables
    .filter((t) => touched.tables.includes(t.name))
    .flatMap((t) => t.columns.filter((c) => /char|text|clob|^$/i.test(c.type)).map((c) => ({ table: t.name, column: c.name })));
  for (const phrase of phrases) {
    for (const { table, column: name } of textColumns) {
      const values = await column(opts, `SELECT DISTINCT ${quoteId(name)} FROM ${quoteId(table)} WHERE ${quoteId(name)} LIKE ${quoteText(`%${phrase}%`)} LIMIT 3`);
      if (values.length) lines.push(`"${phrase}" appears in ${table}.${name}: ${values.map(renderValue).join(', ')}`);
    }
  }
  if (!lines.length) lines.push(touched.tables.length ? '(nothing relevant found)' : '(the query names no table of the schema)');
  return { text: lines.join('\n'), touched };
}
