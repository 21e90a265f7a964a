import type { Db } from './connection';

/** One threshold of a table-retrieval curve (libs/retrieval's `RetrievalOperatingPoint`). */
export interface RetrievalCurvePoint { value: number; recall: number; itemRecall: number; reductionRatio: number; meanTablesKept: number }

/** Which curve: one encoder on one dataset version, under the options that change its scores. */
export interface RetrievalCurveKey { datasetHash: string; encoderFingerprint: string; optionsKey: string }

export interface RetrievalCurve extends RetrievalCurveKey { encoderName: string; items: number; points: RetrievalCurvePoint[]; createdAt: Date }

/** Stored table-retrieval curves: what threshold operating points are resolved against. */
export class RetrievalCurveRepository {
  constructor(private readonly db: Db) {}

  async get(key: RetrievalCurveKey): Promise<RetrievalCurve | undefined> {
    const row = await this.db.selectFrom('retrieval_curves').selectAll()
      .where('dataset_hash', '=', key.datasetHash).where('encoder_fingerprint', '=', key.encoderFingerprint).where('options_key', '=', key.optionsKey)
      .executeTakeFirst();
    if (!row) return undefined;
    return { ...key, encoderName: row.encoder_name, items: row.items, points: row.points, createdAt: row.created_at };
  }

  /** Stores a curve, replacing the one under the same key (a re-evaluation with more thresholds, say). */
  async put(curve: Omit<RetrievalCurve, 'createdAt'>): Promise<void> {
    const values = {
      dataset_hash: curve.datasetHash, encoder_fingerprint: curve.encoderFingerprint, options_key: curve.optionsKey,
      encoder_name: curve.encoderName, items: curve.items, points: JSON.stringify(curve.points),
    };
    await this.db.insertInto('retrieval_curves').values(values)
      .onConflict((oc) => oc.columns(['dataset_hash', 'encoder_fingerprint', 'options_key']).doUpdateSet({ encoder_name: values.encoder_name, items: values.items, points: values.points, created_at: new Date() }))
      .execute();
  }
}
