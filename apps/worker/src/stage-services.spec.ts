import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBundledEncoderForTests, openIndex, type RetrievalDocument } from '@sqlsweep/retrieval';
import { WorkerRetrieval } from './stage-services';

/** 600 short texts: over the 2,048 token rows from which a search is scored on the MaxSim thread. */
const words = ['flight', 'airport', 'city', 'patient', 'doctor', 'ward', 'price', 'date', 'name', 'count', 'country', 'airline'];
const documents: RetrievalDocument[] = Array.from({ length: 600 }, (_, i) => ({
  id: `chunk-${i}`, kind: 'rag-chunk', payload: {},
  text: `${words[i % words.length]} ${words[(i * 7) % words.length]} ${words[(i * 5 + 3) % words.length]} number ${i}`,
}));
const spec = { datasetVersion: 'corpus:test', dbId: null, kind: 'rag-chunk' as const, builderVersion: 1 };

describe('WorkerRetrieval', () => {
  let dataDir: string;
  let retrieval: WorkerRetrieval;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sqlsweep-worker-retrieval-'));
    retrieval = new WorkerRetrieval({ dataDir, encoderDir: ensureBundledEncoderForTests(), logger: { info: () => undefined, warn: () => undefined } });
  });
  afterAll(async () => {
    await retrieval.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('hands the same documents array its index again, and scores a large corpus on the MaxSim thread as the scalar kernel does', async () => {
    const index = await retrieval.index({ ...spec, documents });
    expect(await retrieval.index({ ...spec, documents })).toBe(index);
    // A copy of the documents is keyed by content: the same index, opened once.
    expect(await retrieval.index({ ...spec, documents: [...documents] })).toBe(index);

    const [query] = await (await retrieval.encoder()).encodeQueries(['which airline flies from the city airport']);
    const scored = await index.search(query, { topK: 10 });
    const [key] = readdirSync(join(dataDir, 'indexes')).filter((d) => !d.startsWith('.'));
    const scalar = await (await openIndex(join(dataDir, 'indexes'), key)).index.search(query, { topK: 10 });
    expect(scored.map((d) => d.id)).toEqual(scalar.map((d) => d.id));
    scored.forEach((d, i) => expect(d.score).toBeCloseTo(scalar[i].score, 4));
  });
});
