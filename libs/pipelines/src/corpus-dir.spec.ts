import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { corpusDir, resolveCorpusPath } from './corpus-dir';
import { readKeyedFile } from './file-knobs';
import type { FileKnob } from './pipeline';
// nx-ignore-next-line
import { TempDirs } from '@sqlsweep/testing';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

const knob: FileKnob = { knob: 'ragCorpus', sha256Param: 'ragCorpusSha256', description: 'the RAG corpus' };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the corpus directory (where file knobs may read)', () => {
  const dir = temp.make('corpus-dir-');
  const outside = temp.make('corpus-outside-');
  writeFileSync(join(dir, 'notes.txt'), 'inside\n');
  mkdirSync(join(dir, 'nested'));
  writeFileSync(join(dir, 'nested', 'more.txt'), 'nested\n');
  writeFileSync(join(outside, 'secret.txt'), 'SECRET\n');
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'link-out.txt'));
  symlinkSync(outside, join(dir, 'dir-out'));
  symlinkSync(join(dir, 'notes.txt'), join(dir, 'nested', 'link-in.txt'));

  it('is SQLSWEEP_CORPUS_DIR, else data/ from the working directory', () => {
    expect(corpusDir({})).toBe(resolve('data'));
    expect(corpusDir({ SQLSWEEP_CORPUS_DIR: dir })).toBe(dir);
  });

  it('resolves relative paths inside it, links that stay inside included', () => {
    expect(resolveCorpusPath('notes.txt', dir)).toMatch(/notes\.txt$/);
    expect(resolveCorpusPath('nested/more.txt', dir)).toMatch(/nested[\\/]more\.txt$/);
    expect(resolveCorpusPath('./nested/link-in.txt', dir)).toBe(resolveCorpusPath('notes.txt', dir));
  });

  it.each([
    ['/etc/passwd', /"\/etc\/passwd" is absolute: name a file relative to the corpus directory .* \(SQLSWEEP_CORPUS_DIR\)/],
    [join(dir, 'notes.txt'), /is absolute/],
    ['../x', /"\.\.\/x" holds "\.\."/],
    ['nested/../../x', /holds "\.\."/],
    ['nested\\..\\..\\x', /holds "\.\."/],
    ['link-out.txt', /"link-out\.txt" is a link to .*secret\.txt, outside the corpus directory/],
    ['dir-out/secret.txt', /is a link to .*secret\.txt, outside the corpus directory/],
    ['no-such.txt', /no such file in the corpus directory/],
    ['a\0b', /NUL byte/],
  ])('refuses %j', (path, reason) => {
    expect(() => resolveCorpusPath(path, dir)).toThrow(reason);
  });

  it('says so when the corpus directory itself is missing', () => {
    expect(() => resolveCorpusPath('notes.txt', join(dir, 'nope'))).toThrow(/the corpus directory .*nope \(SQLSWEEP_CORPUS_DIR\) does not exist/);
  });

  describe('a worker reading a file knob (readKeyedFile)', () => {
    it('reads a file in the corpus directory', () => {
      const file = readKeyedFile('r3.rag', knob, { ragCorpus: 'notes.txt', ragCorpusSha256: sha256('inside\n') }, dir);
      expect(file.read().toString()).toBe('inside\n');
      expect(file.path).toBe(join(dir, 'notes.txt'));
    });

    it.each(['/etc/passwd', '../x', 'link-out.txt'])('re-checks the path it was given (%s), whatever the planner did', (path) => {
      expect(() => readKeyedFile('r3.rag', knob, { ragCorpus: path }, dir)).toThrow(/r3\.rag: cannot read the RAG corpus \(knob ragCorpus\) at .*: /);
    });

    /** Writes `text` into `name` in the corpus directory, keeping the file's previous modification time if it had one. */
    const rewrite = (name: string, text: string, mtime?: Date) => {
      writeFileSync(join(dir, name), text);
      if (mtime) utimesSync(join(dir, name), mtime, mtime);
    };
    const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

    it('sees an edit of a file it hashed before that keeps its size and modification time, and refuses a read after it', () => {
      rewrite('settled.txt', 'aaaa\n');
      const { mtime } = statSync(join(dir, 'settled.txt'));
      sleep(1_100); // a file changed in the last second is never taken as unchanged (see fileSha256)
      const params = { ragCorpus: 'settled.txt', ragCorpusSha256: sha256('aaaa\n') };
      const file = readKeyedFile('r3.rag', knob, params, dir);
      expect(readKeyedFile('r3.rag', knob, params, dir).sha256).toBe(sha256('aaaa\n'));
      rewrite('settled.txt', 'bbbb\n', mtime);
      expect(() => file.read()).toThrow(/r3\.rag: the RAG corpus .* has SHA-256 [0-9a-f]{12}, but the sweep was planned with/);
      expect(() => readKeyedFile('r3.rag', knob, params, dir)).toThrow(/has SHA-256 [0-9a-f]{12}, but the sweep was planned with/);
    });

    it('hashes a file changed within the last second on every check, as its times may not have moved yet', () => {
      rewrite('fresh.txt', 'aaaa\n');
      const { mtime } = statSync(join(dir, 'fresh.txt'));
      const params = { ragCorpus: 'fresh.txt', ragCorpusSha256: sha256('aaaa\n') };
      expect(readKeyedFile('r3.rag', knob, params, dir).sha256).toBe(sha256('aaaa\n'));
      rewrite('fresh.txt', 'bbbb\n', mtime);
      expect(() => readKeyedFile('r3.rag', knob, params, dir)).toThrow(/has SHA-256 [0-9a-f]{12}, but the sweep was planned with/);
    });

    it('refuses a file replaced by a link out of the directory after planning', () => {
      const swapped = join(dir, 'swapped.txt');
      writeFileSync(swapped, 'planned\n');
      const params = { ragCorpus: 'swapped.txt', ragCorpusSha256: sha256('planned\n') };
      expect(readKeyedFile('r3.rag', knob, params, dir).read().toString()).toBe('planned\n');
      rmSync(swapped);
      symlinkSync(join(outside, 'secret.txt'), swapped);
      expect(() => readKeyedFile('r3.rag', knob, params, dir)).toThrow(/is a link to .*secret\.txt, outside the corpus directory/);
    });
  });
});
