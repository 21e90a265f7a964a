import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedMultiVectorIndex } from './embedded-index';
import { CONTRACT_DIM, describeIndexContract, syntheticMatrix } from './index-contract';

describeIndexContract('embedded (in memory)', async () => new EmbeddedMultiVectorIndex(CONTRACT_DIM));

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

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
    const loaded = EmbeddedMultiVectorIndex.load(dir, CONTRACT_DIM);
    const query = syntheticMatrix(3, 5, CONTRACT_DIM);
    expect(await loaded.search(query)).toEqual(await index.search(query));
  });

  it('names the file and line of a corrupt documents file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-embedded-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'vectors.f32'), Buffer.alloc(0));
    writeFileSync(join(dir, 'documents.jsonl'), '{"id":"a","rows":0,"kind":"table","text":"","payload":{}}\n{oops\n');
    expect(() => EmbeddedMultiVectorIndex.load(dir, CONTRACT_DIM)).toThrow(/INDEX_CORRUPT: .*documents.jsonl:2/);
  });
});
