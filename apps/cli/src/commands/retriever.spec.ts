import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { ensureBundledEncoderForTests, type TableRetrievalEvalReport } from '@sqlsweep/retrieval';
import { minibenchDir } from '@sqlsweep/testing';
import { registerIndexStatusCommand } from './index-status';
import { registerRetrieverCommand } from './retriever';

async function run(args: string[]): Promise<string> {
  const program = new Command('sqlsweep').exitOverride();
  registerRetrieverCommand(program);
  registerIndexStatusCommand(program);
  const chunks: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await program.parseAsync(['node', 'sqlsweep', ...args]);
  } finally {
    spy.mockRestore();
  }
  return chunks.join('');
}

describe('sqlsweep retriever eval on minibench dev, and index status', () => {
  let work: string;
  let minibench: string;
  let modelDir: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'sqlsweep-cli-retriever-'));
    minibench = join(work, 'minibench');
    cpSync(minibenchDir, minibench, { recursive: true }); // as the unit set-up built it
    modelDir = ensureBundledEncoderForTests();
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('reports recall and reduction per θ, stores the report, and keeps recall above a floor', async () => {
    const out = join(work, 'report.json');
    const args = ['retriever', 'eval', '--format', 'minibench', '--path', minibench, '--model-dir', modelDir, '--index-dir', join(work, 'indexes'), '--out', out, '--with-evidence', '--thresholds', '2,4,6,8,10', '--no-store'];
    const printed = await run(args);
    expect(printed).toMatch(/theta\s+recall\s+all-gold\s+reduction/);
    const report = JSON.parse(readFileSync(out, 'utf8')) as TableRetrievalEvalReport;
    expect(report.dataset).toMatchObject({ format: 'minibench', split: 'dev' });
    expect(report.items).toBeGreaterThanOrEqual(50);
    expect(report.thresholds.map((p) => p.value)).toEqual([2, 4, 6, 8, 10]);
    // Floors for the bundled hashed-n-gram encoder (measured: 80% / 99% / 85% when written).
    expect(report.firstIsGold).toBeGreaterThanOrEqual(0.72);
    expect(report.thresholds[0].recall).toBeGreaterThanOrEqual(0.97);
    expect(report.topK.find((p) => p.value === 5)?.recall).toBeGreaterThanOrEqual(0.8);
    // Higher θ keeps fewer tables.
    expect(report.thresholds[4].reductionRatio).toBeGreaterThan(report.thresholds[0].reductionRatio);

    // A second run reuses every index: same keys, nothing rebuilt.
    const before = JSON.parse(await run(['index', 'status', '--dir', join(work, 'indexes'), '--json']));
    await run(args);
    const after = JSON.parse(await run(['index', 'status', '--dir', join(work, 'indexes'), '--json']));
    expect(after.indexes.map((m: { key: string }) => m.key).sort()).toEqual(before.indexes.map((m: { key: string }) => m.key).sort());
    expect(before.indexes).toHaveLength(2 * 4); // table + column index per database
  });

  it('retriever train fine-tunes a projection that loads as an encoder and lowers the training loss', async () => {
    const outDir = join(work, 'model-ft');
    const printed = await run(['retriever', 'train', '--format', 'minibench', '--path', minibench, '--model-dir', modelDir, '--out-dir', outDir, '--epochs', '2', '--with-evidence']);
    const losses = (printed.match(/loss per epoch: ([\d. ]+)/)?.[1] ?? '').trim().split(' ').map(Number);
    expect(losses).toHaveLength(2);
    expect(losses[1]).toBeLessThan(losses[0]);
    const out = join(work, 'report-ft.json');
    await run(['retriever', 'eval', '--format', 'minibench', '--path', minibench, '--model-dir', outDir, '--index-dir', join(work, 'indexes-ft'), '--out', out, '--with-evidence', '--no-store']);
    const report = JSON.parse(readFileSync(out, 'utf8')) as TableRetrievalEvalReport;
    expect(report.encoder.name).toBe('sqlsweep-ngram-colbert-ft');
    expect(report.firstIsGold).toBeGreaterThanOrEqual(0.72);
  });

  it('index status prints one line per index', async () => {
    const printed = await run(['index', 'status', '--dir', join(work, 'indexes')]);
    expect(printed.split('\n')[0]).toMatch(/^key\s+kind\s+dataset\s+database\s+encoder/);
    expect(printed).toMatch(/column\s+minibench:/);
    expect(await run(['index', 'status', '--dir', join(work, 'none')])).toMatch(/no indexes built yet/);
  });
});
