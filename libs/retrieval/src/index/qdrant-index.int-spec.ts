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
