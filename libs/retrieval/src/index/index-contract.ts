import { maxSim, type TokenMatrix } from '../token-matrix';
import type { IndexedDocument, MultiVectorIndex } from './types';

/** Deterministic unit-vector token matrices for contract tests (no encoder needed). */
export function syntheticMatrix(seed: number, rows: number, dim: number): TokenMatrix {
  let state = seed * 2654435761 + 1;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  const data = new Float32Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) norm += (data[r * dim + j] = next()) ** 2;
    for (let j = 0; j < dim; j++) data[r * dim + j] /= Math.sqrt(norm);
  }
  return { rows, dim, data };
}

export const CONTRACT_DIM = 16;

function corpus(): IndexedDocument[] {
  const docs: IndexedDocument[] = [];
  for (const dbId of ['concert_singer', 'pets_1']) {
    for (let t = 0; t < 5; t++) {
      const seed = docs.length + 1;
      docs.push({ id: `${dbId}.t${t}`, kind: 'table', text: `table ${t} of ${dbId}`, payload: { dbId, table: `t${t}` }, vectors: syntheticMatrix(seed, 3 + (seed % 5), CONTRACT_DIM) });
    }
  }
  return docs;
}

/** The behaviour every MultiVectorIndex implementation must have; run from each implementation's spec. */
export function describeIndexContract(name: string, makeIndex: () => Promise<MultiVectorIndex>): void {
  describe(`MultiVectorIndex contract: ${name}`, () => {
    let index: MultiVectorIndex;
    const docs = corpus();
    const query = syntheticMatrix(999, 6, CONTRACT_DIM);
    const expected = docs.map((d) => ({ id: d.id, score: maxSim(query, d.vectors) })).sort((a, b) => b.score - a.score);

    beforeAll(async () => {
      index = await makeIndex();
      await index.upsert(docs);
    });

    it('counts upserted documents, and upserting the same ids again replaces them', async () => {
      expect(await index.count()).toBe(docs.length);
      await index.upsert(docs.slice(0, 3));
      expect(await index.count()).toBe(docs.length);
    });

    it('scores every document with exact MaxSim, best first', async () => {
      const results = await index.search(query);
      expect(results.map((r) => r.id)).toEqual(expected.map((e) => e.id));
      results.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i].score, 4));
      const first = docs.find((d) => d.id === results[0].id);
      expect(results[0]).toMatchObject({ kind: 'table', text: first?.text, payload: first?.payload });
    });

    it('honours topK and a strict score threshold', async () => {
      expect((await index.search(query, { topK: 3 })).map((r) => r.id)).toEqual(expected.slice(0, 3).map((e) => e.id));
      const threshold = expected[4].score;
      const kept = await index.search(query, { minScore: threshold });
      expect(kept.map((r) => r.id)).toEqual(expected.slice(0, 4).map((e) => e.id));
    });

    it('filters by database and by table', async () => {
      const pets = await index.search(query, { filter: { dbId: 'pets_1' } });
      expect(pets).toHaveLength(5);
      expect(pets.every((r) => r.payload.dbId === 'pets_1')).toBe(true);
      const two = await index.search(query, { filter: { dbId: 'concert_singer', tables: ['t1', 't3'] } });
      expect(two.map((r) => r.id).sort()).toEqual(['concert_singer.t1', 'concert_singer.t3']);
    });

    it('rejects vectors of the wrong width', async () => {
      await expect(index.upsert([{ ...docs[0], id: 'bad', vectors: syntheticMatrix(1, 2, CONTRACT_DIM + 1) }])).rejects.toThrow(/INDEX_DIMENSION_MISMATCH: document bad/);
    });
  });
}
