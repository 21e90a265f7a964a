import type { ItemMatrixDto, ItemMatrixQuery } from '@sqlsweep/contracts';
import type { ItemMatrixRepository, ReportRepository } from '@sqlsweep/db';
import { verdictCategory } from './verdict-category';

/**
 * A page of the run's items × variants matrix: items in dataset order (those of `mode` only), one cell per variant
 * with its verdict category, reason and predicted SQL; null where the variant has no result for the item yet.
 */
export async function itemMatrix(reports: ReportRepository, matrix: ItemMatrixRepository, runId: string, q: ItemMatrixQuery): Promise<ItemMatrixDto> {
  const [variants, page] = await Promise.all([reports.variants(runId), matrix.page(runId, q)]);
  const cells = await matrix.cells(runId, page.rows.map((r) => r.itemId));
  const byKey = new Map(cells.map((c) => [`${c.variantId}/${c.itemId}`, c]));
  return {
    runId, mode: q.mode,
    variants: variants.map((v) => ({ variantId: v.id, label: v.label })),
    rows: page.rows.map((r) => ({
      ...r,
      cells: variants.map((v) => {
        const c = byKey.get(`${v.id}/${r.itemId}`);
        return c ? { variantId: v.id, category: verdictCategory(c), reason: c.reason, predictedSql: c.predictedSql } : null;
      }),
    })),
    counts: page.counts, total: page.counts[q.mode], limit: q.limit, offset: q.offset,
  };
}
