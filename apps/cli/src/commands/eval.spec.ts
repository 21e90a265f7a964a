import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { basename, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Command, CommanderError } from 'commander';
import { makeConformanceDatabases } from '@sqlsweep/sql-sandbox';
import { registerEvalCommand } from './eval';

const BIN = resolve(__dirname, '../../../../bin/sqlsweep');

const SAMPLES = resolve(__dirname, '../../../../test/fixtures/benchmark-samples');

interface Verdict {
  i: number;
  db_id: string;
  exec: number;
  hardness?: string;
  difficulty?: string;
}

const readJsonl = <T>(file: string): T[] =>
  readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as T);

async function runCli(args: string[]): Promise<{ stdout: string }> {
  const program = new Command('sqlsweep').exitOverride();
  program.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  registerEvalCommand(program);
  let stdout = '';
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['node', 'sqlsweep', 'eval', ...args]);
  } finally {
    spy.mockRestore();
  }
  return { stdout };
}

describe('sqlsweep eval', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'sqlsweep-eval-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  describe('reproduces the official verdicts item by item', () => {
    const spider = join(SAMPLES, 'spider-sample');
    const bird = join(SAMPLES, 'bird-sample');
    const spiderFiles = readdirSync(join(spider, 'predictions'));
    const birdFiles = readdirSync(join(bird, 'predictions'));

    it.each(spiderFiles)('Spider %s: exec and hardness of every item', async (file) => {
      const name = basename(file, '.sql');
      const out = join(tmp, `${name}.jsonl`);
      const { stdout } = await runCli([
        '--format', 'spider', '--db-dir', join(spider, 'database'), '--gold', join(spider, 'dev_gold.sql'),
        '--pred', join(spider, 'predictions', file), '--out', out,
      ]);
      const official = readJsonl<Verdict>(join(spider, 'official-verdicts', `${name}.jsonl`));
      const ours = readJsonl<{ i: number; exec: number; level: string; db_id: string; reason: string }>(out);
      expect(ours).toHaveLength(official.length);
      const disagreements = official
        .filter((o, k) => ours[k].exec !== o.exec || ours[k].level !== o.hardness || ours[k].db_id !== o.db_id)
        .map((o) => ({ official: o, ours: ours[o.i] }));
      expect(disagreements).toEqual([]);
      const accuracy = official.filter((o) => o.exec === 1).length / official.length;
      expect(stdout).toContain('EXECUTION ACCURACY');
      expect(stdout).toMatch(new RegExp(`^execution\\s.*${accuracy.toFixed(3)}\\s*$`, 'm'));
    });

    it.each(birdFiles)('BIRD %s: exec and difficulty of every item', async (file) => {
      const name = basename(file, '.json');
      const out = join(tmp, `bird-${name}.jsonl`);
      const { stdout } = await runCli([
        '--format', 'bird', '--db-dir', join(bird, 'dev_databases'), '--gold', join(bird, 'dev_gold.sql'),
        '--pred', join(bird, 'predictions', file), '--out', out,
      ]);
      const official = readJsonl<Verdict>(join(bird, 'official-verdicts', `${name}.jsonl`));
      const ours = readJsonl<{ exec: number; level: string }>(out);
      expect(ours).toHaveLength(official.length);
      expect(official.filter((o, k) => ours[k].exec !== o.exec || ours[k].level !== o.difficulty)).toEqual([]);
      const total = (100 * official.filter((o) => o.exec === 1).length) / official.length;
      expect(stdout).toMatch(new RegExp(`^accuracy\\s.*${total.toFixed(2)}\\s*$`, 'm'));
    });
  });

  describe('VES and Soft-F1 on BIRD, gold scored against itself', () => {
    const bird = join(SAMPLES, 'bird-sample');
    let selfPred: string;
    beforeAll(() => {
      const lines = readFileSync(join(bird, 'dev_gold.sql'), 'utf8').split('\n').filter((l) => l.trim());
      selfPred = join(tmp, 'self.json');
      const obj = Object.fromEntries(lines.map((l, i) => { const [sql, db] = l.split('\t'); return [String(i), `${sql}\t----- bird -----\t${db}`]; }));
      writeFileSync(selfPred, JSON.stringify(obj));
    });
    const args = () => ['--format', 'bird', '--db-dir', join(bird, 'dev_databases'), '--gold', join(bird, 'dev_gold.sql'), '--pred', selfPred];

    it('gives EX 100 and Soft-F1 100', async () => {
      expect((await runCli(args())).stdout).toMatch(/^accuracy\s+100\.00\s+100\.00\s+100\.00\s+100\.00\s*$/m);
      expect((await runCli([...args(), '--metric', 'soft-f1'])).stdout).toMatch(/^soft-f1\s+100\.00\s+100\.00\s+100\.00\s+100\.00\s*$/m);
    });

    it('gives VES near 100 (same queries, same machine) and names the machine', async () => {
      const out = join(tmp, 'ves.jsonl');
      const { stdout } = await runCli([...args(), '--metric', 'ves', '--ves-iterations', '10', '--out', out]);
      const total = Number(/^ves\s+(?:\S+\s+){3}(\S+)/m.exec(stdout)![1]);
      // Timings on a shared machine are noisy; this checks the mechanics (ratio around 1), not the machine.
      expect(total).toBeGreaterThan(60);
      expect(total).toBeLessThan(160);
      expect(stdout).toMatch(/timings measured on: .+ x\d+/);
      expect(readJsonl<{ time_ratio: number; machine: string }>(out).every((l) => l.time_ratio > 0 && /x\d+/.test(l.machine))).toBe(true);
    }, 120_000);
  });

  it('Spider semantics: needs a match on every .sqlite variant in the database folder (test-suite style)', async () => {
    const dbDir = join(tmp, 'suite');
    const folder = join(dbDir, 'shop');
    mkdirSync(folder, { recursive: true });
    const make = (file: string, rows: string) => {
      const db = new Database(join(folder, file));
      db.exec(`CREATE TABLE item (id INTEGER, price INTEGER); INSERT INTO item VALUES ${rows};`);
      db.close();
    };
    make('shop.sqlite', '(1, 5), (2, 7)');
    make('shop_variant.sqlite', '(1, 5), (2, 5)');
    const gold = join(tmp, 'suite-gold.sql');
    const pred = join(tmp, 'suite-pred.sql');
    writeFileSync(gold, 'SELECT id FROM item WHERE price > 5\tshop\nSELECT count(*) FROM item\tshop\n');
    writeFileSync(pred, 'SELECT id FROM item WHERE id = 2\nSELECT count(id) FROM item\n');
    const out = join(tmp, 'suite.jsonl');
    await runCli(['--format', 'spider', '--db-dir', dbDir, '--gold', gold, '--pred', pred, '--out', out]);
    const lines = readJsonl<{ exec: number; reason: string }>(out);
    expect(lines.map((l) => l.exec)).toEqual([0, 1]); // item 0 matches on shop.sqlite only
    expect(lines[0].reason).toContain('shop_variant.sqlite');
  });

  describe('refusals', () => {
    it('refuses a prediction file with the wrong number of lines, naming both counts', async () => {
      const spider = join(SAMPLES, 'spider-sample');
      const short = join(tmp, 'short.sql');
      writeFileSync(short, readFileSync(join(spider, 'predictions', 'dail-sql-gpt4.sql'), 'utf8').split('\n').slice(0, 296).join('\n'));
      const err = await runCli(['--format', 'spider', '--db-dir', join(spider, 'database'), '--gold', join(spider, 'dev_gold.sql'), '--pred', short]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CommanderError);
      expect((err as CommanderError).exitCode).toBe(2);
      expect((err as Error).message).toContain(`${short} has 296 predictions but ${join(spider, 'dev_gold.sql')} has 297 gold queries`);
    });

    it('refuses an unknown --format and a missing database', async () => {
      await expect(runCli(['--format', 'wikisql', '--db-dir', tmp, '--gold', 'g', '--pred', 'p'])).rejects.toThrow(/--format must be one of spider, bird, got "wikisql"/);
      const gold = join(tmp, 'gold.sql');
      const pred = join(tmp, 'pred.sql');
      writeFileSync(gold, 'SELECT 1\tnope\n');
      writeFileSync(pred, 'SELECT 1\n');
      await expect(runCli(['--format', 'spider', '--db-dir', tmp, '--gold', gold, '--pred', pred])).rejects.toThrow(/database of db_id nope not found/);
    });
  });

  describe('as a new user runs it', () => {
    let work: string;
    beforeAll(() => {
      work = mkdtempSync(join(tmpdir(), 'sqlsweep-eval-cwd-'));
      makeConformanceDatabases(join(work, 'dbs'));
      writeFileSync(join(work, 'gold.sql'), 'SELECT id FROM item WHERE id = 1\tshop\nSELECT name FROM item WHERE id = 2\tshop\n');
      writeFileSync(join(work, 'pred.sql'), 'SELECT id FROM item WHERE id = 1\nSELECT 1\n');
      writeFileSync(join(work, 'pred.json'), JSON.stringify({ 0: 'SELECT id FROM item WHERE id = 1\t----- bird -----\tshop', 1: 'SELECT 1\t----- bird -----\tshop' }));
    });
    afterAll(() => rmSync(work, { recursive: true, force: true }));
    const cli = (args: string[]) => spawnSync(process.execPath, [BIN, 'eval', ...args], { cwd: work, encoding: 'utf8', timeout: 60_000 });

    it('runs from another directory with relative paths, and creates --out\'s missing folder', () => {
      const r = cli(['--format', 'spider', '--db-dir', 'dbs', '--gold', 'gold.sql', '--pred', 'pred.sql', '--workers', '1', '--scorer', 'spider-ex', '--out', 'new/folder/items.jsonl']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^execution\s.*0\.500\s*$/m);
      expect(r.stdout).toContain('scorer: spider-ex@2');
      const lines = readJsonl<{ scorer: string; level: string | null }>(join(work, 'new/folder/items.jsonl'));
      expect(lines.map((l) => l.scorer)).toEqual(['spider-ex@2', 'spider-ex@2']);
      expect(lines.every((l) => typeof l.level === 'string')).toBe(true);
    }, 60_000);

    it('--workers 0: a usage error, exit 2, one line, no stack trace or help text', () => {
      const r = cli(['--format', 'spider', '--db-dir', 'dbs', '--gold', 'gold.sql', '--pred', 'pred.sql', '--workers', '0']);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual(['sqlsweep eval: --workers must be a positive integer, got "0"']);
    }, 60_000);

    it('--out that cannot be written fails before evaluating, in one line', () => {
      writeFileSync(join(work, 'a-file'), '');
      const r = cli(['--format', 'spider', '--db-dir', 'dbs', '--gold', 'gold.sql', '--pred', 'pred.sql', '--out', 'a-file/x.jsonl']);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('--out a-file/x.jsonl: cannot write');
    }, 60_000);

    it('BIRD: a wrong --questions path is an error naming it, never a table of zeros', async () => {
      const args = ['--format', 'bird', '--db-dir', join(work, 'dbs'), '--gold', join(work, 'gold.sql'), '--pred', join(work, 'pred.json')];
      await expect(runCli([...args, '--questions', join(work, 'nope.json')])).rejects.toThrow(`--questions ${join(work, 'nope.json')}: no such file`);
    });

    it('BIRD: without difficulties, a notice, a total-only table, and level null with the reason on every item', async () => {
      const questions = join(work, 'questions.json');
      writeFileSync(questions, JSON.stringify([{ question_id: 1 }, { question_id: 2 }]));
      const out = join(work, 'bird.jsonl');
      const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
      let stdout: string;
      try {
        ({ stdout } = await runCli(['--format', 'bird', '--db-dir', join(work, 'dbs'), '--gold', join(work, 'gold.sql'), '--pred', join(work, 'pred.json'), '--questions', questions, '--out', out]));
        expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain(`notice: no difficulty breakdown: ${questions} has no "difficulty" field`);
      } finally {
        stderr.mockRestore();
      }
      expect(stdout).not.toMatch(/simple|moderate|challenging/);
      expect(stdout).toMatch(/^accuracy\s+50\.00\s*$/m);
      const lines = readJsonl<{ level: string | null; level_note?: string }>(out);
      expect(lines.every((l) => l.level === null && l.level_note?.includes('no "difficulty"'))).toBe(true);
    });
  });
});
