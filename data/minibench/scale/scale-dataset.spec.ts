import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { loadDataset } from '@sqlsweep/datasets';
import { GoldIndex } from '@sqlsweep/llm-sim';
import { generateScaleDataset, ScaleDatasetError, type ScaleItem } from './generate';

const readItems = (dir: string, file: string) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as ScaleItem[];

describe('scale dataset generator', () => {
  let root: string;
  let dir: string;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-dataset-'));
    dir = path.join(root, 'a');
    await generateScaleDataset({ outDir: dir, dev: 300, train: 100, seed: 7 });
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('writes the Spider layout with the asked sizes and unique questions', () => {
    const dev = readItems(dir, 'dev.json');
    const train = readItems(dir, 'train_spider.json');
    expect(dev).toHaveLength(300);
    expect(train).toHaveLength(100);
    const questions = new Set([...dev, ...train].map((i) => i.question.trim().toLowerCase()));
    expect(questions.size).toBe(400);
    expect(fs.readFileSync(path.join(dir, 'dev_gold.sql'), 'utf8').trim().split('\n')).toHaveLength(300);
    expect(fs.readdirSync(path.join(dir, 'database')).sort()).toEqual(['flights', 'hospital', 'retail', 'university']);
    // Variety: several templates, joins, aggregates and LIMITs all present.
    const sqls = dev.map((i) => i.query);
    expect(sqls.some((s) => / JOIN /.test(s))).toBe(true);
    expect(sqls.some((s) => /GROUP BY/.test(s))).toBe(true);
    expect(sqls.some((s) => /LIMIT \d+$/.test(s))).toBe(true);
    expect(sqls.some((s) => /\(SELECT AVG/.test(s))).toBe(true);
  });

  it('every gold SQL runs on its database and returns rows', () => {
    const handles = new Map<string, Database.Database>();
    try {
      for (const item of [...readItems(dir, 'dev.json'), ...readItems(dir, 'train_spider.json')]) {
        let db = handles.get(item.db_id);
        if (!db) handles.set(item.db_id, (db = new Database(path.join(dir, 'database', item.db_id, `${item.db_id}.sqlite`), { readonly: true })));
        const rows = db.prepare(item.query).raw(true).all() as unknown[][];
        expect({ sql: item.query, rows: rows.length > 0 }).toEqual({ sql: item.query, rows: true });
      }
    } finally {
      for (const db of handles.values()) db.close();
    }
  });

  it('is deterministic from the seed, and skips a folder that already holds the same seed and sizes', async () => {
    const again = path.join(root, 'b');
    await generateScaleDataset({ outDir: again, dev: 300, train: 100, seed: 7 });
    for (const f of ['dev.json', 'train_spider.json', 'dev_gold.sql', 'tables.json']) {
      expect(fs.readFileSync(path.join(again, f), 'utf8')).toBe(fs.readFileSync(path.join(dir, f), 'utf8'));
    }
    expect((await generateScaleDataset({ outDir: again, dev: 300, train: 100, seed: 7 })).generated).toBe(false);
    const other = await generateScaleDataset({ outDir: again, dev: 300, train: 100, seed: 8 });
    expect(other.generated).toBe(true);
    expect(fs.readFileSync(path.join(again, 'dev.json'), 'utf8')).not.toBe(fs.readFileSync(path.join(dir, 'dev.json'), 'utf8'));
  });

  it('loads as a Spider dataset with every item graded and no problem', async () => {
    const ds = await loadDataset({ format: 'spider', path: dir });
    expect(ds.problems).toEqual([]);
    expect(ds.items.filter((i) => i.split === 'dev')).toHaveLength(300);
    expect(ds.items.filter((i) => i.split === 'train')).toHaveLength(100);
    expect(ds.items.every((i) => i.hardness !== undefined)).toBe(true);
  });

  it('the LLM simulator knows every question and its gold SQL', () => {
    const index = new GoldIndex([dir]);
    expect(index.size).toBe(400);
    for (const item of readItems(dir, 'dev.json')) {
      const found = index.findTarget(`### Schema\n...\nQuestion: ${item.question}\nSQL:`);
      expect(found && { sql: found.sql, dbId: found.dbId }).toEqual({ sql: item.query, dbId: item.db_id });
    }
  });

  it('rejects a bad size with a message naming the flag', async () => {
    await expect(generateScaleDataset({ outDir: path.join(root, 'c'), dev: -1, train: 1 })).rejects.toThrow(ScaleDatasetError);
    await expect(generateScaleDataset({ outDir: path.join(root, 'c'), dev: -1, train: 1 })).rejects.toThrow('--dev');
  });
});
