import type { VerdictCategory } from '@sqlsweep/contracts';

/** The fields of an item result a verdict category is read from. */
export interface VerdictFields { correct: boolean; errored: boolean; parseFailed: boolean; reason: string | null }

/**
 * The one rule for an item's verdict category (libs/db's `verdictCategorySql` is the same rule in SQL, for counts and
 * filters; verdict-category.int-spec checks they agree). An errored item (a stage failed, its gold is invalid) or one
 * whose gold failed when scored is a pipeline error; a prediction that errored or timed out in the sandbox is a SQL
 * error; an answer with no SQL is `no-sql`; any other miss is a wrong result.
 */
export function verdictCategory(r: VerdictFields): VerdictCategory {
  if (r.correct) return 'correct';
  const reason = r.reason ?? '';
  if (r.errored || reason.startsWith('gold-')) return 'pipeline-error';
  if (r.parseFailed) return 'no-sql';
  if (reason.startsWith('pred-error') || reason.startsWith('pred-timeout')) return 'sql-error';
  return 'wrong-result';
}

/** Labels as people read them. */
export const verdictCategoryLabels: Record<VerdictCategory, string> = {
  correct: 'correct', 'wrong-result': 'wrong result', 'sql-error': 'SQL failed to execute', 'no-sql': 'no SQL in the answer', 'pipeline-error': 'pipeline error',
};

/** An item result with its category added. */
export function withCategory<T extends VerdictFields>(r: T): T & { category: VerdictCategory } {
  return { ...r, category: verdictCategory(r) };
}
