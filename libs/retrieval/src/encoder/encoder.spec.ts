import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBundledEncoderForTests } from '../testing/test-encoder';
import { maxSim, type TokenMatrix } from '../token-matrix';
import { openEncoder, type Encoder } from './encoder';

describe('bundled encoder loaded through onnxruntime-node in a worker thread', () => {
  let root: string;
  let modelDir: string;
  let encoder: Encoder;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sqlsweep-encoder-'));
    modelDir = ensureBundledEncoderForTests();
    encoder = await openEncoder({ modelDir, intraOpNumThreads: 1, batchSize: 4 });
  });

  afterAll(async () => {
    await encoder.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('skips an up-to-date build and rebuilds byte-identical files', () => {
    const build = (dir: string) => JSON.parse(execFileSync(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'bundled', 'build-bundled-encoder.main.ts'), dir], { encoding: 'utf8' }));
    const before = readFileSync(join(modelDir, 'model.onnx'));
    const mtime = statSync(join(modelDir, 'model.onnx')).mtimeMs;
    expect(build(modelDir).built).toBe(false);
    expect(statSync(join(modelDir, 'model.onnx')).mtimeMs).toBe(mtime);
    const other = join(root, 'again');
    expect(build(other).built).toBe(true);
    expect(readFileSync(join(other, 'model.onnx')).equals(before)).toBe(true);
    expect(readFileSync(join(other, 'tokenizer.json'), 'utf8')).toBe(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8'));
  });

  it('pads queries to 32 tokens and keeps one unit vector per document token', async () => {
    const [query] = await encoder.encodeQueries(['How many singers are there?']);
    expect(query.rows).toBe(32);
    expect(query.dim).toBe(128);
    const [doc] = await encoder.encodeDocuments(['singer: singer_id integer | name text']);
    // [CLS] [D] + 11 pieces + [SEP]
    expect(doc.rows).toBe(encoder.countTokens('singer: singer_id integer | name text') + 3);
    const norm = Math.hypot(...doc.data.subarray(2 * 128, 3 * 128));
    expect(norm).toBeCloseTo(1, 5);
  });

  it('returns the same vectors as a direct onnxruntime run on the main thread', async () => {
    const [doc] = await encoder.encodeDocuments(['concert: stadium_id | year']);
    const vocab = JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')).model.vocab as Record<string, number>;
    const ids = ['[CLS]', '[unused1]', 'con', '##cer', '##t', ':', 'sta', '##diu', '##m', '_', 'id', '|', 'yea', '##r', '[SEP]'].map((t) => vocab[t]);
    // onnxruntime cannot run inside Jest's sandbox (typed arrays of another realm): run it in a plain node process.
    const script = `
      const ort = require('onnxruntime-node');
      (async () => {
        const ids = ${JSON.stringify(ids)};
        const session = await ort.InferenceSession.create(${JSON.stringify(join(modelDir, 'model.onnx'))});
        const out = await session.run({
          input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
          attention_mask: new ort.Tensor('int64', BigInt64Array.from(ids.map(() => 1n)), [1, ids.length]),
        });
        process.stdout.write(JSON.stringify(Array.from(out.last_hidden_state.data)));
      })();`;
    const direct: number[] = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: join(__dirname, '..', '..', '..', '..') }));
    expect(doc.rows).toBe(ids.length);
    for (let i = 0; i < direct.length; i++) expect(doc.data[i]).toBeCloseTo(direct[i], 5);
  });

  it('MaxSim equals a direct recomputation from the token embeddings', async () => {
    const [query] = await encoder.encodeQueries(['Which stadium hosted the most concerts in 2014?']);
    const docs = await encoder.encodeDocuments(['stadium: stadium_id | location | name | capacity', 'singer: singer_id | name | country | age', 'concert: concert_id | concert_name | theme | stadium_id | year']);
    const recompute = (q: TokenMatrix, d: TokenMatrix) => {
      let total = 0;
      for (let i = 0; i < q.rows; i++) {
        let best = -Infinity;
        for (let j = 0; j < d.rows; j++) {
          let dot = 0;
          for (let k = 0; k < q.dim; k++) dot += q.data[i * q.dim + k] * d.data[j * d.dim + k];
          best = Math.max(best, dot);
        }
        total += best;
      }
      return total;
    };
    for (const doc of docs) expect(maxSim(query, doc)).toBeCloseTo(recompute(query, doc), 4);
    const scores = docs.map((doc) => maxSim(query, doc));
    expect(scores[1]).toBeLessThan(Math.min(scores[0], scores[2]));
  });

  it('pools to one unit vector per text for sentence similarity', async () => {
    const [a, b, c] = await encoder.encodePooled(['list the names of singers', 'show singer names', 'average stadium capacity']);
    const cos = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);
    expect(cos(a, a)).toBeCloseTo(1, 5);
    expect(cos(a, b)).toBeGreaterThan(cos(a, c));
  });

  it('answers a query or pooled text it encoded recently from its cache, each caller with a copy of its own', async () => {
    const uncached = await openEncoder({ modelDir, cacheBytes: 0 });
    try {
      const texts = ['How many heads of departments are older than 56?', 'List the name of the oldest singer.'];
      const before = encoder.cacheStats;
      const first = await encoder.encodeQueries(texts);
      first[0]!.data.fill(0); // a caller changing its vectors changes nobody else's
      const again = await encoder.encodeQueries([texts[1]!, texts[0]!, texts[1]!]);
      expect(encoder.cacheStats).toEqual({ hits: before.hits + 3, misses: before.misses + 2 });
      const fresh = await uncached.encodeQueries([texts[0]!, texts[1]!]);
      expect([...again[1]!.data]).toEqual([...fresh[0]!.data]);
      expect([...again[0]!.data]).toEqual([...fresh[1]!.data]);
      expect(again[2]!.data).not.toBe(again[0]!.data);
      expect([...again[2]!.data]).toEqual([...again[0]!.data]);
      // Pooled vectors are kept apart from query matrices of the same text, and a repeated text is encoded once.
      const pooled = await encoder.encodePooled([texts[0]!, texts[0]!]);
      expect(pooled[0]!.length).toBe(128);
      expect(pooled[1]).not.toBe(pooled[0]);
      expect([...pooled[1]!]).toEqual([...pooled[0]!]);
      expect([...(await uncached.encodePooled([texts[0]!]))[0]!]).toEqual([...pooled[0]!]);
      expect(uncached.cacheStats.hits).toBe(0);
    } finally {
      await uncached.close();
    }
  });

  it('applies a separately shipped projection (projectionFile) before normalising', async () => {
    // A permutation projection: the output must be the base vectors with their coordinates permuted.
    const dir = join(root, 'projected');
    const { mkdirSync, copyFileSync, writeFileSync } = await import('node:fs');
    mkdirSync(dir);
    for (const file of ['model.onnx', 'tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(modelDir, file), join(dir, file));
    const dim = 128;
    const projection = new Float32Array(dim * dim);
    const target = (k: number) => (k * 37 + 11) % dim; // a permutation of 0..127
    for (let k = 0; k < dim; k++) projection[k * dim + target(k)] = 1;
    writeFileSync(join(dir, 'projection.bin'), new Uint8Array(projection.buffer));
    const { builder: _builder, ...config } = JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, name: 'permuted', projectionFile: 'projection.bin' }));
    const projected = await openEncoder({ modelDir: dir });
    try {
      const text = 'stadium: capacity | location';
      const [base] = await encoder.encodeDocuments([text]);
      const [permuted] = await projected.encodeDocuments([text]);
      expect(permuted.rows).toBe(base.rows);
      for (let r = 0; r < base.rows; r++) for (let k = 0; k < dim; k++) expect(permuted.data[r * dim + target(k)]).toBeCloseTo(base.data[r * dim + k], 5);
      expect(projected.fingerprint).not.toBe(encoder.fingerprint);
    } finally {
      await projected.close();
    }
    writeFileSync(join(dir, 'projection.bin'), new Uint8Array(12));
    await expect(openEncoder({ modelDir: dir })).rejects.toThrow(/projection.bin: expected 128x128 float32, found 3 floats/);
  });

  it('rejects a model directory without config.json with a clear error', async () => {
    await expect(openEncoder({ modelDir: join(root, 'nowhere') })).rejects.toThrow(/ENCODER_MODEL_MISSING: .*nowhere\/config.json/);
  });
});
