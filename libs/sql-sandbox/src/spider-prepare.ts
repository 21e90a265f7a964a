import { lexSql } from './sql-lexer';

/** `> =`, `< =`, `! =` become `>=`, `<=`, `!=` (test-suite-sql-eval `postprocess`). */
export function normaliseSpiderOperators(sql: string): string {
  return sql.replace(/> =/g, '>=').replace(/< =/g, '<=').replace(/! =/g, '!=');
}

/** Drops every DISTINCT keyword token, leaving the whitespace around it (sqlparse-based `remove_distinct`). */
export function removeDistinct(sql: string): string {
  return lexSql(sql)
    .filter((t) => !(t.kind === 'word' && t.text.toLowerCase() === 'distinct'))
    .map((t) => t.text)
    .join('');
}

/** `YEAR(CURDATE())` becomes 2020, as the official executor does before running any query. */
export function replaceCurrentYear(sql: string): string {
  return sql.replace(/YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*/gi, '2020');
}

/**
 * The first statement, up to and including its `;` (outside strings, quoted names and comments). The official
 * `remove_distinct` rebuilds the query from `sqlparse.parse(sql)[0]`, sqlparse's first statement, so whatever
 * follows the first `;` (a second statement, trailing prose) is never run.
 */
export function firstStatement(sql: string): string {
  let out = '';
  for (const t of lexSql(sql)) {
    out += t.text;
    if (t.kind === 'other' && t.text === ';') return out;
  }
  return out;
}

/** The rewrites the official Spider evaluator applies to a gold query before running it (default flags). */
export function spiderPrepareGold(sql: string): string {
  return replaceCurrentYear(removeDistinct(firstStatement(normaliseSpiderOperators(sql))));
}

/**
 * The rewrites the official Spider evaluator (test-suite-sql-eval, `exec`, default flags) applies to a predicted
 * query before running it: every substring `value` becomes `1` (case-sensitive, even inside names and strings),
 * the operators are normalised, only the first statement is kept and DISTINCT removed (keep_distinct = false),
 * YEAR(CURDATE()) becomes 2020.
 */
export function spiderPrepare(sql: string): string {
  return spiderPrepareGold(sql.replace(/value/g, '1'));
}

/** Order matters iff the gold contains `order by` anywhere (lower-cased substring, subqueries included). */
export function spiderOrderMatters(goldSql: string): boolean {
  return goldSql.toLowerCase().includes('order by');
}
