import type { DatabaseSchema } from '@sqlsweep/datasets';
import { lexSql, type SqlToken } from '@sqlsweep/sql-sandbox';

/**
 * RB-SQL's "simple corrections by rules" (Table 4 discussion: "we rerun samples ... or make simple corrections by
 * rules"). The paper names no rule; these are the ones the authors' released code applies (a missing leading
 * SELECT, trailing semicolons) plus the commonest SQLite errors a rule can fix without guessing meaning:
 * - `single-statement`: trailing semicolons dropped, and only the first statement kept ("You can only execute one
 *   statement at a time");
 * - `select-prefix`: a query that starts with its select list (`name FROM t`) gets its `SELECT`;
 * - `quote-names`: a schema name with spaces or punctuation (BIRD's `Free Meal Count (K-12)`) written unquoted is
 *   wrapped in backticks;
 * - `ilike`: PostgreSQL's `ILIKE` becomes `LIKE` (SQLite's LIKE already ignores ASCII case).
 */
export type RuleFix = 'single-statement' | 'select-prefix' | 'quote-names' | 'ilike';

export interface RuleFixResult { sql: string; applied: RuleFix[] }

const isCode = (t: SqlToken): boolean => t.kind === 'word' || t.kind === 'space' || t.kind === 'other';

function singleStatement(sql: string): string {
  const tokens = lexSql(sql);
  const end = tokens.findIndex((t) => t.kind === 'other' && t.text.includes(';'));
  if (end < 0) return sql;
  const before = tokens.slice(0, end).map((t) => t.text).join('');
  const semicolon = tokens[end].text.slice(0, tokens[end].text.indexOf(';'));
  return `${before}${semicolon}`.trim();
}

function selectPrefix(sql: string): string {
  const words = lexSql(sql).filter((t) => t.kind !== 'space' && t.kind !== 'comment');
  const first = words[0];
  // Only a bare select list (a name, a quoted name, `*`) lacks its SELECT; `(SELECT ...) UNION ...` does not.
  const startsSelectList = first !== undefined && (first.kind === 'quoted' || first.text.startsWith('*') || (first.kind === 'word' && !/^(SELECT|WITH|VALUES)$/i.test(first.text)));
  if (!startsSelectList) return sql;
  const hasFrom = words.some((t) => t.kind === 'word' && t.text.toUpperCase() === 'FROM');
  return hasFrom ? `SELECT ${sql.trimStart()}` : sql;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Schema names that SQLite can only read quoted: anything but letters, digits and underscores. */
function namesNeedingQuotes(schema: DatabaseSchema): string[] {
  const names = schema.tables.flatMap((t) => [t.name, ...t.columns.map((c) => c.name)]);
  return [...new Set(names.filter((n) => /[^A-Za-z0-9_]/.test(n)))].sort((a, b) => b.length - a.length);
}

function quoteNames(sql: string, schema: DatabaseSchema): string {
  const names = namesNeedingQuotes(schema);
  if (names.length === 0) return sql;
  // Strings, quoted identifiers and comments are masked so that only bare code is matched.
  const masked = lexSql(sql).map((t) => (isCode(t) ? t.text : '\u0000'.repeat(t.text.length))).join('');
  const taken: Array<[number, number]> = [];
  for (const name of names) {
    const pattern = new RegExp(`(?<![\\w\\u0000])${escapeRegExp(name).replace(/\s+/g, '\\s+')}(?![\\w\\u0000])`, 'gi');
    for (const m of masked.matchAll(pattern)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (taken.some(([s, e]) => start < e && end > s)) continue;
      taken.push([start, end]);
    }
  }
  let out = sql;
  for (const [start, end] of taken.sort((a, b) => b[0] - a[0])) out = `${out.slice(0, start)}\`${out.slice(start, end)}\`${out.slice(end)}`;
  return out;
}

function ilike(sql: string): string {
  return lexSql(sql).map((t) => (t.kind === 'word' && t.text.toUpperCase() === 'ILIKE' ? 'LIKE' : t.text)).join('');
}

/** Applies every rule in turn; `applied` names those that changed the query. */
export function applyRuleFixes(sql: string, schema: DatabaseSchema): RuleFixResult {
  const rules: Array<[RuleFix, (s: string) => string]> = [
    ['single-statement', singleStatement],
    ['select-prefix', selectPrefix],
    ['quote-names', (s) => quoteNames(s, schema)],
    ['ilike', ilike],
  ];
  const applied: RuleFix[] = [];
  let current = sql;
  for (const [name, fix] of rules) {
    const next = fix(current);
    if (next !== current) applied.push(name);
    current = next;
  }
  return { sql: current, applied };
}
