import { readdirSync } from 'node:fs';
import type { Encoder } from '../encoder/encoder';
import { openBundledEncoderFixture, type BundledEncoderFixture } from '../testing/test-encoder';
import { maxSim } from '../token-matrix';
import { buildIndex, openIndex, type IndexSpec } from './build-index';
import { listIndexes } from './index-catalog';

describe('buildIndex (embedded, keyed by content hash)', () => {
  let encoder: Encoder;
  let root: string;
  let fixture: BundledEncoderFixture;
  const spec: IndexSpec = {
    datasetVersion: 'test-v1',
    dbId: 'concert_singer',
    kind: 'table',
    builderVersion: 1,
    documents: [
      { id: 'concert_singer.stadium', kind: 'table', text: 'name: stadium | stadium_id: int | location: text | capacity: int', payload: { dbId: 'concert_singer', table: 'stadium' } },
      { id: 'concert_singer.singer', kind: 'table', text: 'name: singer | singer_id: int | name: text | country: text | age: int', payload: { dbId: 'concert_singer', table: 'singer' } },
      { id: 'concert_singer.concert', kind: 'table', text: 'name: concert | concert_id: int | concert_name: text | year: text', payload: { dbId: 'concert_singer', table: 'concert' } },
    ],
  };

  beforeAll(async () => {
    ({ encoder, root } = fixture = await openBundledEncoderFixture('indexes'));
  });
  afterAll(() => fixture.close());

  it('builds once, then reuses; two concurrent builds of one key leave one complete index', async () => {
    const [a, b] = await Promise.all([buildIndex(spec, { encoder, indexRoot: root }), buildIndex(spec, { encoder, indexRoot: root })]);
    expect(a.key).toBe(b.key);
    expect(readdirSync(root)).toEqual([a.key]);
    const again = await buildIndex(spec, { encoder, indexRoot: root });
    expect(again.reused).toBe(true);
    expect(again.manifest).toMatchObject({ key: a.key, kind: 'table', dbId: 'concert_singer', documents: 3, encoder: { name: encoder.config.name, dim: 128 } });
  });

  it('searches the persisted index with the same scores as MaxSim on freshly encoded documents', async () => {
    const { key } = await buildIndex(spec, { encoder, indexRoot: root });
    const { index } = await openIndex(root, key);
    const [query] = await encoder.encodeQueries(['What is the capacity of the stadium in Glasgow?']);
    const results = await index.search(query);
    expect(results[0].payload.table).toBe('stadium');
    const fresh = await encoder.encodeDocuments(spec.documents.map((d) => d.text));
    for (const result of results) {
      const i = spec.documents.findIndex((d) => d.id === result.id);
      expect(result.score).toBeCloseTo(maxSim(query, fresh[i]), 4);
    }
  });

  it('changes key when a document text changes, and index status lists both', async () => {
    const first = await buildIndex(spec, { encoder, indexRoot: root });
    const changed = await buildIndex({ ...spec, documents: spec.documents.map((d, i) => (i === 0 ? { ...d, text: `${d.text} | highest: int` } : d)) }, { encoder, indexRoot: root });
    expect(changed.key).not.toBe(first.key);
    expect(changed.reused).toBe(false);
    const listing = listIndexes(root);
    expect(listing.indexes.map((m) => m.key).sort()).toEqual([first.key, changed.key].sort());
    expect(listing.incomplete).toEqual([]);
  });

  it('rejects duplicate document ids, naming the id', async () => {
    await expect(buildIndex({ ...spec, documents: [spec.documents[0], spec.documents[0]] }, { encoder, indexRoot: root })).rejects.toThrow(/concert_singer.stadium/);
  });
});
