import type { VerdictCategory } from '@sqlsweep/contracts';

/** How each verdict category reads: a word, a one-letter mark for dense grids, and its CSS class (AA contrast). */
export const categoryText: Record<VerdictCategory, { label: string; mark: string }> = {
  correct: { label: 'correct', mark: '✓' },
  'wrong-result': { label: 'wrong result', mark: '✗' },
  'sql-error': { label: 'SQL error', mark: 'E' },
  'no-sql': { label: 'no SQL', mark: '∅' },
  'pipeline-error': { label: 'pipeline error', mark: '!' },
};

/** A verdict category; its tooltip gives the reason and the scorer that gave it. */
export function Verdict({ category, reason, scorer }: { category: VerdictCategory; reason: string; scorer?: string | null }) {
  return (
    <span className={`verdict cat-${category}`} data-testid="verdict" data-category={category} title={scorer ? `${reason} (${scorer})` : reason}>
      {categoryText[category].label}
    </span>
  );
}
