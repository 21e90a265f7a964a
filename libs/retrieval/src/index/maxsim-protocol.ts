/** Documents of similar length, padded to `rows` token rows; the buffers are transferred to the scorer thread. */
export interface MaxSimBucket {
  /** [count, rows, dim] */
  documents: Float32Array;
  /** [count, rows, 1]: 0 for real rows, -1e9 for padding */
  padBias: Float32Array;
  count: number;
  rows: number;
  /** position of each bucket document in the index's document order */
  documentIndices: Int32Array;
}

export type MaxSimRequest =
  | { op: 'register'; id: number; corpusId: number; dim: number; buckets: MaxSimBucket[]; totalDocuments: number }
  | { op: 'release'; id: number; corpusId: number }
  | { op: 'score'; id: number; corpusId: number; query: Float32Array; queryRows: number };

export type MaxSimResponse = { id: number; ok: true; scores?: Float32Array } | { id: number; ok: false; message: string };
