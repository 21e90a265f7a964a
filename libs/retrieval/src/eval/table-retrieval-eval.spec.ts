import { loadDataset } from '@sqlsweep/datasets';
import { join, resolve } from 'node:path';
import type { Encoder } from '../encoder/encoder';
import { openBundledEncoderFixture, type BundledEncoderFixture } from '../testing/test-encoder';
import { evaluateTableRetrieval, type TableRetrievalEvalReport } from './table-retrieval-eval';

// The real Spider and BIRD samples, copied into the repository with their licence note.
const SAMPLES = resolve(__dirname, '../../../../test/fixtures/benchmark-samples');
const THRESHOLDS = [2, 3, 4, 5, 6, 7, 8];

function expectMonotone(report: TableRetrievalEvalReport): void {
  for (let i = 1; i < report.thresholds.length; i++) {
    expect(report.thresholds[i].recall).toBeLessThanOrEqual(report.thresholds[i - 1].recall);
    expect(report.thresholds[i].reductionRatio).toBeGreaterThanOrEqual(report.thresholds[i - 1].reductionRatio);
  }
}

describe('table-retrieval recall with the bundled encoder (floors pinned on real samples)', () => {
  let encoder: Encoder;
  let root: string;
  let fixture: BundledEncoderFixture;
  beforeAll(async () => {
    ({ encoder, root } = fixture = await openBundledEncoderFixture('tr-eval'));
  });
  afterAll(() => fixture.close());

  it('Spider sample dev: the first table is gold for most questions, top-3 recall high', async () => {
    const dataset = await loadDataset({ format: 'spider', path: join(SAMPLES, 'spider-sample') });
    const report = await evaluateTableRetrieval({ dataset, datasetVersion: 'spider-sample', encoder, indexRoot: root, thresholds: THRESHOLDS });
    expect(report.items).toBeGreaterThan(250);
    expect(report.firstIsGold).toBeGreaterThanOrEqual(0.88);
    expect(report.topK.find((p) => p.value === 3)?.recall).toBeGreaterThanOrEqual(0.9);
    expect(report.thresholds[0].recall).toBeGreaterThanOrEqual(0.99);
    expectMonotone(report);
  });

  it('BIRD sample dev (one 8-table database, with evidence)', async () => {
    const dataset = await loadDataset({ format: 'bird', path: join(SAMPLES, 'bird-sample') });
    const report = await evaluateTableRetrieval({ dataset, datasetVersion: 'bird-sample', encoder, indexRoot: root, thresholds: THRESHOLDS, withEvidence: true });
    expect(report.items).toBe(48);
    expect(report.firstIsGold).toBeGreaterThanOrEqual(0.75);
    expect(report.topK.find((p) => p.value === 5)?.recall).toBeGreaterThanOrEqual(0.85);
    expectMonotone(report);
  });
});
