import { QdrantClient } from '@qdrant/js-client-rest';
import { CONTRACT_DIM, describeIndexContract } from './index-contract';
import { QdrantMultiVectorIndex } from './qdrant-index';

// Runs only where a Qdrant server is reachable (QDRANT_URL); this machine has none.
const url = process.env.QDRANT_URL;
const collections: string[] = [];
const client = url ? new QdrantClient({ url }) : null;

if (client) {
  afterAll(async () => {
    for (const name of collections) await client.deleteCollection(name);
  });
  for (const densePrefetch of [undefined, 50]) {
    describeIndexContract(`qdrant${densePrefetch ? ' with dense prefetch' : ''}`, async () => {
      const collection = `sqlsweep_contract_${process.pid}_${Date.now()}_${densePrefetch ?? 0}`;
      collections.push(collection);
      return new QdrantMultiVectorIndex({ client, collection, dim: CONTRACT_DIM, densePrefetch });
    });
  }
} else {
  it.skip('qdrant contract (set QDRANT_URL to run)', () => undefined);
}

describe('buildQdrantIndex', () => {
  if (!client) {
    it.skip('builds and reuses a collection (set QDRANT_URL to run)', () => undefined);
    return;
  }
  it('builds a collection once per content key and reuses it', async () => {
    const { openEncoder } = await import('../encoder/encoder');
    const { ensureBundledEncoderForTests } = await import('../testing/test-encoder');
    const { buildQdrantIndex } = await import('./build-qdrant-index');
    const encoder = await openEncoder({ modelDir: ensureBundledEncoderForTests() });
    try {
      const spec = {
        datasetVersion: `contract-${process.pid}-${Date.now()}`,
        dbId: 'concert_singer',
        kind: 'table' as const,
        builderVersion: 1,
        documents: [
          { id: 'concert_singer.stadium', kind: 'table' as const, text: 'name: stadium | location: text | capacity: int', payload: { dbId: 'concert_singer', table: 'stadium' } },
          { id: 'concert_singer.singer', kind: 'table' as const, text: 'name: singer | name: text | country: text', payload: { dbId: 'concert_singer', table: 'singer' } },
        ],
      };
      const first = await buildQdrantIndex(spec, { encoder, client });
      collections.push(first.collection);
      expect(first.reused).toBe(false);
      const again = await buildQdrantIndex(spec, { encoder, client });
      expect(again).toMatchObject({ reused: true, collection: first.collection });
      const [query] = await encoder.encodeQueries(['stadium capacity']);
      expect((await again.index.search(query, { topK: 1 }))[0].payload.table).toBe('stadium');
    } finally {
      await encoder.close();
    }
  });
});
