import type { Parser } from 'node-sql-parser';

let parser: Parser | undefined;

/** node-sql-parser, loaded on first use: it takes tens of milliseconds to load, and most processes that import the retrieval library never parse gold SQL. */
function sqlParser(): Parser {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  parser ??= new (require('node-sql-parser') as typeof import('node-sql-parser')).Parser();
  return parser;
}

/** Removes string literals and comments so their words are never taken for identifiers. */
function stripLiterals(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, ' ');
}

/** Fallback for SQL the parser rejects: identifier-like tokens (bare, "quoted", `quoted`, [quoted]). */
function identifierTokens(sql: string): string[] {
  const tokens: string[] = [];
  const pattern = /"((?:[^"]|"")+)"|`([^`]+)`|\[([^\]]+)\]|([A-Za-z_][A-Za-z0-9_$]*)/g;
  for (const match of stripLiterals(sql).matchAll(pattern)) tokens.push(match[1] ?? match[2] ?? match[3] ?? match[4]);
  return tokens;
}

export interface GoldTables {
  tables: string[];
  /** 'parser' when node-sql-parser read the SQL, 'tokens' when the fallback tokenizer was used */
  source: 'parser' | 'tokens';
}

/**
 * The schema tables a gold SQL reads, named as in the schema. node-sql-parser (sqlite dialect) `tableList` first;
 * identifier tokens matched against the schema's table names when it cannot parse the query.
 */
export function goldTablesOf(sql: string, schemaTables: readonly string[]): GoldTables {
  const byLower = new Map(schemaTables.map((t) => [t.toLowerCase(), t]));
  const resolve = (names: Iterable<string>) => [...new Set([...names].map((n) => byLower.get(n.toLowerCase())).filter((t): t is string => t !== undefined))].sort();
  try {
    // Entries look like "select::null::member"; the last part is the table name.
    const list = sqlParser().tableList(sql, { database: 'sqlite' });
    const tables = resolve(list.map((entry) => entry.split('::').slice(2).join('::')));
    if (tables.length > 0) return { tables, source: 'parser' };
  } catch {
    // fall through to the tokenizer
  }
  return { tables: resolve(identifierTokens(sql)), source: 'tokens' };
}
