import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachedChunks } from './chunk-cache';
import { ragChunkDocuments } from './builders';
import type { RetrievalDocument } from '../index/types';

describe('cachedChunks', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-chunks-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const corpus = 'problem: a state of difficulty that needs to be resolved race: a contest of speed taxpayer: someone who pays taxes';
  /** A real chunking, counting its calls. */
  const chunker = () => {
    const calls = { n: 0 };
    return { calls, chunk: (): RetrievalDocument[] => (calls.n++, ragChunkDocuments([{ sourceId: 'glosses.txt', text: corpus }], (w) => w.length, 20)) };
  };

  it('chunks once per key and gives the same chunks back from disk, to a later call as to the first', async () => {
    const { calls, chunk } = chunker();
    const first = await cachedChunks(dir, 'corpus-a:20', chunk);
    const again = await cachedChunks(dir, 'corpus-a:20', chunk);
    expect(calls.n).toBe(1);
    expect(first.length).toBeGreaterThan(1);
    expect(again).toEqual(first);
    expect(readdirSync(dir)).toHaveLength(1);
    await cachedChunks(dir, 'corpus-a:30', chunk);
    expect(calls.n).toBe(2);
  });

  it('chunks again over a file that does not read back as chunks, and replaces it', async () => {
    const { calls, chunk } = chunker();
    const expected = await cachedChunks(dir, 'k', chunk);
    const [file] = readdirSync(dir);
    for (const broken of ['{"id": "gl', '[]', '[{"id": 1}]', 'null', '[{"id": "a", "kind": "rag-chunk", "text": "a"}]']) {
      writeFileSync(join(dir, file), broken);
      expect(await cachedChunks(dir, 'k', chunk)).toEqual(expected);
    }
    expect(calls.n).toBe(6);
    expect(await cachedChunks(dir, 'k', chunk)).toEqual(expected);
    expect(calls.n).toBe(6);
  });

  it('passes a chunking failure on and keeps nothing for it', async () => {
    await expect(cachedChunks(dir, 'k', () => {
      throw new Error('r3.rag: the RAG corpus holds no text');
    })).rejects.toThrow('holds no text');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('still gives the chunks where they cannot be kept, and makes them again next time', async () => {
    const { calls, chunk } = chunker();
    const blocked = join(dir, 'not-a-folder');
    writeFileSync(blocked, '');
    const first = await cachedChunks(blocked, 'k', chunk);
    expect(first.length).toBeGreaterThan(1);
    expect(await cachedChunks(blocked, 'k', chunk)).toEqual(first);
    expect(calls.n).toBe(2);
    expect(readdirSync(dir)).toEqual(['not-a-folder']);
  });
});
