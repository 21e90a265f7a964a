import { sql, type RawBuilder } from 'kysely';

/**
 * An item result's verdict category in SQL, over the item_results row aliased `alias` (the same rule as
 * libs/orchestration's `verdictCategory`; verdict-category.int-spec checks they agree): 'correct', 'pipeline-error',
 * 'no-sql', 'sql-error' or 'wrong-result'.
 */
export function verdictCategorySql(alias: string): RawBuilder<string> {
  const c = (col: string) => sql.ref(`${alias}.${col}`);
  return sql<string>`CASE
    WHEN ${c('correct')} THEN 'correct'
    WHEN ${c('errored')} OR ${c('reason')} LIKE 'gold-%' THEN 'pipeline-error'
    WHEN ${c('parse_failed')} THEN 'no-sql'
    WHEN ${c('reason')} LIKE 'pred-error%' OR ${c('reason')} LIKE 'pred-timeout%' THEN 'sql-error'
    ELSE 'wrong-result' END`;
}
