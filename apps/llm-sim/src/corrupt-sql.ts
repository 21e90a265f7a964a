import { pick, type Rng } from './rng';

export type CorruptionKind =
  | 'wrong_column'
  | 'missing_join_condition'
  | 'wrong_aggregate'
  | 'wrong_literal'
  | 'wrong_order'
  | 'syntax_error'
  | 'wrong_table';

export interface Corruption {
  kind: CorruptionKind;
  sql: string;
}

const KEYWORDS = new Set(
  `select from where and or not in is null like between group by order having limit offset join inner left right outer cross
   on as distinct count sum avg min max case when then else end asc desc union intersect except all exists cast
   integer real text iif substr length strftime date julianday round abs ifnull coalesce upper lower instr replace`
    .split(/\s+/)
    .filter(Boolean),
);

/** Identifiers used as column names: not keywords, not function names, not table names or aliases. */
function columnTokens(sql: string): string[] {
  const tables = new Set<string>();
  for (const m of sql.matchAll(/\b(?:FROM|JOIN)\s+([`"\w]+)(?:\s+(?:AS\s+)?(\w+))?/gi)) {
    tables.add(m[1]!.replace(/[`"]/g, '').toLowerCase());
    if (m[2]) tables.add(m[2].toLowerCase());
  }
  for (const m of sql.matchAll(/\bAS\s+(\w+)/gi)) tables.add(m[1]!.toLowerCase());
  const withoutStrings = sql.replace(/'(?:[^']|'')*'/g, "''");
  const found = new Set<string>();
  for (const m of withoutStrings.matchAll(/(?<![\w.])(?:\w+\.)?([A-Za-z_]\w*)\b(?!\s*\()/g)) {
    const name = m[1]!;
    const lower = name.toLowerCase();
    if (KEYWORDS.has(lower) || tables.has(lower)) continue;
    found.add(name);
  }
  return [...found];
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function wrongColumn(sql: string, rng: Rng, schemaColumns: readonly string[]): string | null {
  const used = columnTokens(sql);
  if (used.length === 0) return null;
  const target = pick(rng, used);
  const usedLower = new Set(used.map((c) => c.toLowerCase()));
  let pool = schemaColumns.filter((c) => !usedLower.has(c.toLowerCase()) && /^[A-Za-z_]\w*$/.test(c));
  if (pool.length === 0) pool = used.filter((c) => c !== target);
  if (pool.length === 0) return null;
  const replacement = pick(rng, pool);
  const re = new RegExp(`(?<![\\w'])${escapeRegex(target)}(?![\\w'])`);
  const out = sql.replace(re, replacement);
  return out === sql ? null : out;
}

function missingJoinCondition(sql: string, rng: Rng): string | null {
  const conditions = [...sql.matchAll(/\s+ON\s+[\w."`]+\s*=\s*[\w."`]+/gi)];
  if (conditions.length === 0) return null;
  const m = pick(rng, conditions);
  return sql.slice(0, m.index) + sql.slice(m.index! + m[0].length);
}

const AGGREGATE_SWAPS: Record<string, string[]> = {
  MAX: ['MIN'],
  MIN: ['MAX'],
  AVG: ['SUM', 'MAX'],
  SUM: ['AVG', 'COUNT'],
};

function wrongAggregate(sql: string, rng: Rng): string | null {
  const calls = [...sql.matchAll(/\b(COUNT|SUM|AVG|MIN|MAX)\s*\(\s*(DISTINCT\s+)?/gi)];
  if (calls.length === 0) return null;
  const m = pick(rng, calls);
  const fn = m[1]!.toUpperCase();
  let replacement: string;
  if (fn === 'COUNT') {
    if (m[2]) replacement = 'COUNT(';
    else if (/^\s*COUNT\s*\(\s*\*/i.test(sql.slice(m.index!))) return null;
    else replacement = 'COUNT(DISTINCT ';
  } else {
    replacement = `${pick(rng, AGGREGATE_SWAPS[fn]!)}(${m[2] ?? ''}`;
  }
  return sql.slice(0, m.index) + replacement + sql.slice(m.index! + m[0].length);
}

function wrongLiteral(sql: string, rng: Rng): string | null {
  const literals = [...sql.matchAll(/'(?:[^']|'')+'|(?<![\w.])\d+(?:\.\d+)?(?![\w.])/g)].filter(
    // LIMIT 1 is nearly always intended; changing it is not a realistic wrong-literal mistake.
    (m) => !/LIMIT\s*$/i.test(sql.slice(0, m.index)),
  );
  if (literals.length === 0) return null;
  const m = pick(rng, literals);
  const lit = m[0];
  let changed: string;
  if (lit.startsWith("'")) {
    const inner = lit.slice(1, -1);
    changed = inner === inner.toLowerCase() ? `'${inner.charAt(0).toUpperCase()}${inner.slice(1)}s'` : `'${inner.toLowerCase()}'`;
  } else {
    const n = Number(lit);
    changed = lit.includes('.') ? String(Math.round(n * 1.1 * 100) / 100) : String(n === 0 ? 1 : n + (rng() < 0.5 ? 1 : -1));
  }
  return sql.slice(0, m.index) + changed + sql.slice(m.index! + lit.length);
}

function wrongOrder(sql: string): string | null {
  if (/\bORDER\s+BY\b[^;]*?\bDESC\b/i.test(sql)) return sql.replace(/\bDESC\b/i, 'ASC');
  if (/\bORDER\s+BY\b[^;]*?\bASC\b/i.test(sql)) return sql.replace(/\bASC\b/i, 'DESC');
  if (/\bORDER\s+BY\b/i.test(sql) && /\bLIMIT\b/i.test(sql)) return sql.replace(/(\bORDER\s+BY\s+[^;]*?)(\s+LIMIT\b)/i, '$1 DESC$2');
  return null;
}

function syntaxError(sql: string, rng: Rng): string {
  const options: Array<() => string | null> = [
    () => (/\bFROM\b/i.test(sql) ? sql.replace(/\bFROM\b/i, 'FORM') : null),
    () => (sql.includes(')') ? sql.replace(/\)(?!.*\))/, '') : null),
    () => (/\bWHERE\b/i.test(sql) ? sql.replace(/\bWHERE\b/i, 'WHERE AND') : null),
    () => (/,/.test(sql) ? sql.replace(/,/, ',,') : null),
  ];
  for (let i = 0; i < options.length; i++) {
    const out = pick(rng, options)();
    if (out) return out;
  }
  return `${sql} WHERE`;
}

/**
 * A realistic wrong answer derived from the gold SQL: one mistake of a kind chosen by `rng` among those
 * applicable to this query (a syntax error is always applicable).
 */
export function corruptSql(gold: string, rng: Rng, schemaColumns: readonly string[] = []): Corruption {
  // Relative frequencies of mistakes; syntax errors are rare in strong models' SQL.
  const weights: Array<[CorruptionKind, number]> = [
    ['wrong_column', 3],
    ['missing_join_condition', 2],
    ['wrong_aggregate', 2],
    ['wrong_literal', 2],
    ['wrong_order', 1],
    ['syntax_error', 0.6],
  ];
  const attempt = (kind: CorruptionKind): string | null => {
    switch (kind) {
      case 'wrong_column':
        return wrongColumn(gold, rng, schemaColumns);
      case 'missing_join_condition':
        return missingJoinCondition(gold, rng);
      case 'wrong_aggregate':
        return wrongAggregate(gold, rng);
      case 'wrong_literal':
        return wrongLiteral(gold, rng);
      case 'wrong_order':
        return wrongOrder(gold);
      case 'syntax_error':
        return syntaxError(gold, rng);
      case 'wrong_table':
        return null; // needs the prompt's tables: wrongTable()
    }
  };
  // Weighted draw without replacement among the kinds that apply to this query.
  let left = [...weights];
  while (left.length > 0) {
    const total = left.reduce((a, [, w]) => a + w, 0);
    let x = rng() * total;
    let i = 0;
    while (i < left.length - 1 && x >= left[i]![1]) x -= left[i++]![1];
    const kind = left[i]![0];
    const sql = attempt(kind);
    if (sql !== null && sql !== gold) return { kind, sql };
    left = left.filter((_, j) => j !== i);
  }
  return { kind: 'syntax_error', sql: `${gold} WHERE` };
}

/**
 * The mistake of a model whose prompt lacks a table the gold reads: the missing tables replaced by tables the prompt
 * does show (in FROM/JOIN and as column qualifiers), tables the query does not already read first. Null when the
 * prompt shows no table to use instead.
 */
export function wrongTable(gold: string, missingTables: readonly string[], shownTables: readonly string[], rng: Rng): Corruption | null {
  const missing = new Set(missingTables.map((t) => t.toLowerCase()));
  const unused = shownTables.filter((t) => !missing.has(t.toLowerCase()) && !new RegExp(`(?<![\\w.])${escapeRegex(t)}(?![\\w])`, 'i').test(gold));
  const pool = unused.length > 0 ? unused : shownTables.filter((t) => !missing.has(t.toLowerCase()));
  if (pool.length === 0 || missing.size === 0) return null;
  let sql = gold;
  for (const table of missing) {
    const chosen = pick(rng, pool);
    const replacement = /^[A-Za-z_]\w*$/.test(chosen) ? chosen : `"${chosen.replace(/"/g, '""')}"`;
    const name = `(?:"${escapeRegex(table)}"|\`${escapeRegex(table)}\`|\\[${escapeRegex(table)}\\]|${escapeRegex(table)})`;
    // Outside string literals only: split on them and rewrite the code parts.
    sql = sql
      .split(/('(?:[^']|'')*')/)
      .map((part, i) => (i % 2 === 1 ? part : part.replace(new RegExp(`(?<![\\w.])${name}(?![\\w])`, 'gi'), replacement)))
      .join('');
  }
  return sql === gold ? null : { kind: 'wrong_table', sql };
}
