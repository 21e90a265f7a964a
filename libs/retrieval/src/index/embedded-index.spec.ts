import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedMultiVectorIndex } from './embedded-index';
import { CONTRACT_DIM, describeIndexContract, syntheticMatrix } from './index-contract';
import { openMaxSimScorer, type MaxSimScorer } from './maxsim-scorer';

describeIndexContract('embedded (in memory)', async () => new EmbeddedMultiVectorIndex(CONTRACT_DIM));

const dirs: string[] = [];
const scorers: MaxSimScorer[] = [];
afterAll(async () => {
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  for (const scorer of scorers) await scorer.close();
});

describeIndexContract('embedded, scored on onnxruntime in a worker thread', async () => {
  const scorer = await openMaxSimScorer({ bucketSize: 4 });
  scorers.push(scorer);
  return new EmbeddedMultiVectorIndex(CONTRACT_DIM, { scorer, scorerMinRows: 1 });
});

describe('onnxruntime MaxSim scorer', () => {
  it('gives the scalar kernel\'s scores on documents of mixed lengths, including empty ones', async () => {
    const scorer = await openMaxSimScorer({ bucketSize: 3 });
    scorers.push(scorer);
    const docs = Array.from({ length: 11 }, (_, i) => ({ id: `d${i}`, kind: 'column' as const, text: '', payload: {}, vectors: syntheticMatrix(i + 7, i === 4 ? 0 : 1 + ((i * 5) % 9), CONTRACT_DIM) }));
    const scalar = new EmbeddedMultiVectorIndex(CONTRACT_DIM);
    const onnx = new EmbeddedMultiVectorIndex(CONTRACT_DIM, { scorer, scorerMinRows: 1 });
    await scalar.upsert(docs);
    await onnx.upsert(docs);
    const query = syntheticMatrix(42, 7, CONTRACT_DIM);
    const expected = await scalar.search(query);
    const actual = await onnx.search(query);
    expect(actual.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    actual.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i].score, 4));
    // An upsert after the first search re-registers the corpus.
    await onnx.upsert([{ ...docs[0], vectors: syntheticMatrix(99, 3, CONTRACT_DIM) }]);
    await scalar.upsert([{ ...docs[0], vectors: syntheticMatrix(99, 3, CONTRACT_DIM) }]);
    expect((await onnx.search(query)).find((r) => r.id === 'd0')?.score).toBeCloseTo((await scalar.search(query)).find((r) => r.id === 'd0')?.score ?? NaN, 4);
    // A search racing an upsert finishes on the corpus it started with.
    const racing = onnx.search(query);
    await onnx.upsert([{ ...docs[1], id: 'new', vectors: syntheticMatrix(5, 2, CONTRACT_DIM) }]);
    expect(await racing).toHaveLength(11);
    expect(await onnx.search(query)).toHaveLength(12);
    await onnx.close();
  });

  it('scores on the scorer thread by the candidates\' token rows, not their number', async () => {
    const real = await openMaxSimScorer({ bucketSize: 4 });
    scorers.push(real);
    let registered = 0;
    const counting: MaxSimScorer = { register: (dim, documents) => (registered++, real.register(dim, documents)), close: () => real.close() };
    // Three long documents: 2,400 token rows, over the default threshold of 2,048.
    const long = Array.from({ length: 3 }, (_, i) => ({ id: `l${i}`, kind: 'column' as const, text: '', payload: { dbId: i === 0 ? 'a' : 'b' }, vectors: syntheticMatrix(i + 1, 800, CONTRACT_DIM) }));
    const index = new EmbeddedMultiVectorIndex(CONTRACT_DIM, { scorer: counting });
    await index.upsert(long);
    const query = syntheticMatrix(7, 5, CONTRACT_DIM);
    const scalar = new EmbeddedMultiVectorIndex(CONTRACT_DIM);
    await scalar.upsert(long);
    const expected = await scalar.search(query);
    const viaScorer = await index.search(query);
    expect(registered).toBe(1);
    expect(viaScorer.map((r) => r.id)).toEqual(expected.map((r) => r.id));
    viaScorer.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i].score, 4));
    // Filtered down to one document (800 rows), the scalar kernel scores it: nothing more is registered or asked.
    expect(await index.search(query, { filter: { dbId: 'a' } })).toHaveLength(1);
    expect(registered).toBe(1);
    // Enough rows, but a tenth of a corpus the scorer would score whole: the scalar kernel scores them.
    const large = new EmbeddedMultiVectorIndex(CONTRACT_DIM, { scorer: counting, scorerMinRows: 100 });
    await large.upsert(Array.from({ length: 12 }, (_, i) => ({ id: `g${i}`, kind: 'column' as const, text: '', payload: { dbId: i === 0 ? 'a' : 'b' }, vectors: syntheticMatrix(i + 50, 200, CONTRACT_DIM) })));
    expect(await large.search(query, { filter: { dbId: 'a' } })).toHaveLength(1);
    expect(registered).toBe(1);
    expect(await large.search(query, { filter: { dbId: 'b' } })).toHaveLength(11);
    expect(registered).toBe(2);
    await large.close();
    // Many short documents stay on the scalar kernel.
    const short = new EmbeddedMultiVectorIndex(CONTRACT_DIM, { scorer: counting });
    await short.upsert(Array.from({ length: 600 }, (_, i) => ({ id: `s${i}`, kind: 'column' as const, text: '', payload: {}, vectors: syntheticMatrix(i + 3, 2, CONTRACT_DIM) })));
    expect(await short.search(query, { topK: 3 })).toHaveLength(3);
    expect(registered).toBe(2);
    await index.close();
  });
});

describeIndexContract('embedded (saved to disk and loaded back)', async () => {
  // The contract upserts into the loaded index: start from a saved empty index to exercise load.
  const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-embedded-'));
  dirs.push(dir);
  await new EmbeddedMultiVectorIndex(CONTRACT_DIM).save(dir);
  return EmbeddedMultiVectorIndex.load(dir, CONTRACT_DIM);
});

describe('embedded index persistence', () => {
  it('round-trips documents and vectors exactly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-embedded-'));
    dirs.push(dir);
    const index = new EmbeddedMultiVectorIndex(CONTRACT_DIM);
    await index.upsert([
      { id: 'a', kind: 'column', text: 'singer || name', payload: { dbId: 'x', table: 'singer', column: 'name' }, vectors: syntheticMatrix(1, 4, CONTRACT_DIM) },
      { id: 'b', kind: 'column', text: 'singer || age', payload: { dbId: 'x', table: 'singer', column: 'age' }, vectors: syntheticMatrix(2, 3, CONTRACT_DIM) },
    ]);
    expect(await index.save(dir)).toBe(7);
    const loaded = await EmbeddedMultiVectorIndex.load(dir, CONTRACT_DIM);
    const query = syntheticMatrix(3, 5, CONTRACT_DIM);
    expect(await loaded.search(query)).toEqual(await index.search(query));
  });

  it('names the file and line of a corrupt documents file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-embedded-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'vectors.f32'), Buffer.alloc(0));
    writeFileSync(join(dir, 'documents.jsonl'), '{"id":"a","rows":0,"kind":"table","text":"","payload":{}}\n{oops\n');
    await expect(EmbeddedMultiVectorIndex.load(dir, CONTRACT_DIM)).rejects.toThrow(/INDEX_CORRUPT: .*documents.jsonl:2/);
  });
});
