import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DatasetError, loadDataset } from './index';

const SAMPLES = resolve(__dirname, '../../../test/fixtures/benchmark-samples');

describe('loadDataset on the real Spider sample', () => {
  it('loads 297 dev items with hardness, 5 databases with PK/FK, and flags train items without databases', async () => {
    const ds = await loadDataset({ format: 'spider', path: join(SAMPLES, 'spider-sample') });
    const dev = ds.items.filter((i) => i.split === 'dev');
    expect(dev).toHaveLength(297);
    expect(dev[0]).toMatchObject({ id: 'dev-0', dbId: 'concert_singer', goldSql: 'SELECT count(*) FROM singer', hardness: 'easy' });
    expect(ds.items.filter((i) => i.split === 'train')).toHaveLength(7000);
    expect(ds.databases.map((d) => d.dbId)).toEqual(['car_1', 'concert_singer', 'orchestra', 'pets_1', 'student_transcripts_tracking']);
    const car = ds.databases.find((d) => d.dbId === 'car_1')!;
    const countries = car.tables.find((t) => t.name === 'countries')!;
    expect(countries.columns[0]).toMatchObject({ name: 'CountryId', primaryKey: true });
    expect(countries.columns.find((c) => c.name === 'Continent')!.references).toEqual({ table: 'continents', column: 'ContId' });
    expect(countries.columns[1].sampleValues.length).toBeGreaterThan(0);
    const trainProblems = ds.problems.filter((p) => p.file === 'train_spider.json');
    expect(trainProblems).toHaveLength(7000);
    expect(trainProblems[0].message).toMatch(/db_id \w+ has no database/);
    // Spider's gold uses double-quoted strings ("Live final"), which only compile with the DQS fallback.
    expect(ds.problems.filter((p) => p.file === 'dev.json')).toEqual([]);
  });
});

describe('loadDataset on the real BIRD sample', () => {
  it('loads items with evidence and difficulty, and descriptions from CSVs in several encodings', async () => {
    const ds = await loadDataset({ format: 'bird', path: join(SAMPLES, 'bird-sample') });
    expect(ds.items).toHaveLength(48);
    expect(ds.items[0]).toMatchObject({ id: 'dev-1312', dbId: 'student_club', difficulty: 'simple' });
    expect(ds.items[0].evidence).toContain('Angela Sanders');
    expect(ds.problems).toEqual([]);
    const tables = ds.databases[0].tables;
    const budget = tables.find((t) => t.name === 'budget')!;
    // budget.csv is Windows-1252 (0x95 bullets): decoded as U+2022, never as U+FFFD.
    const text = budget.columns.map((c) => `${c.description ?? ''} ${c.valueDescription ?? ''}`).join(' ');
    expect(text).toContain('\u2022');
    expect(text).not.toContain('\uFFFD');
    const attendance = tables.find((t) => t.name === 'attendance')!; // CRLF line ends
    expect(attendance.columns.find((c) => c.name === 'link_to_member')!.valueDescription).toBe('References the Member table');
    expect(tables.find((t) => t.name === 'member')!.columns.find((c) => c.name === 'member_id')!.primaryKey).toBe(true);
  });
});

// Built by the unit project's Jest set-up (test/unit-setup.ts) and by `npm run setup`.
const MINIBENCH = resolve(__dirname, '../../../data/minibench/dist');

describe('loadDataset on the built minibench', () => {
  it('loads both splits over the databases in dev_databases/ with no problems', async () => {
    const ds = await loadDataset({ format: 'minibench', path: MINIBENCH });
    expect(ds.problems).toEqual([]);
    expect(ds.items.some((i) => i.split === 'train') && ds.items.some((i) => i.split === 'dev')).toBe(true);
    expect(new Set(ds.items.map((i) => i.id)).size).toBe(ds.items.length);
    const used = new Set(ds.items.map((i) => i.dbId));
    expect(ds.databases.map((d) => d.dbId).filter((id) => used.has(id))).toEqual([...used].sort());
    const described = ds.databases.flatMap((d) => d.tables.flatMap((t) => t.columns)).filter((c) => c.description);
    expect(described.length).toBeGreaterThan(0);
  });
});

describe('loadDataset problems', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'sqlsweep-ds-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function makeBird(questions: unknown): void {
    mkdirSync(join(root, 'dev_databases', 'shop'), { recursive: true });
    const db = new Database(join(root, 'dev_databases', 'shop', 'shop.sqlite'));
    db.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'pen'), (2, 'ink');");
    db.close();
    writeFileSync(join(root, 'dev.json'), typeof questions === 'string' ? questions : JSON.stringify(questions));
  }

  it('throws a DatasetError naming the file when dev.json is missing', async () => {
    await expect(loadDataset({ format: 'bird', path: root })).rejects.toThrow(/dev\.json: file is missing/);
  });

  it('throws a DatasetError naming the file for malformed JSON', async () => {
    makeBird('[{"question_id": 1,');
    const err = await loadDataset({ format: 'bird', path: root }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatasetError);
    expect((err as DatasetError).file).toBe(join(root, 'dev.json'));
    expect((err as Error).message).toMatch(/malformed JSON/);
  });

  it('flags unknown databases, non-compiling gold SQL and bad items per item, and introspects the schema', async () => {
    makeBird([
      { question_id: 1, db_id: 'shop', question: 'names?', SQL: 'SELECT name FROM item', difficulty: 'simple' },
      { question_id: 2, db_id: 'nowhere', question: 'x?', SQL: 'SELECT 1', difficulty: 'simple' },
      { question_id: 3, db_id: 'shop', question: 'y?', SQL: 'SELECT price FROM item', difficulty: 'hard' },
      { question_id: 4, db_id: 'shop' },
    ]);
    const ds = await loadDataset({ format: 'bird', path: root });
    expect(ds.items.map((i) => i.id)).toEqual(['dev-1', 'dev-2', 'dev-3']);
    const byItem = (id: string) => ds.problems.filter((p) => p.item === id).map((p) => p.message);
    expect(byItem('dev-2')).toEqual(['db_id nowhere has no database']);
    expect(byItem('dev-3')).toEqual(expect.arrayContaining([expect.stringMatching(/unknown difficulty "hard"/), expect.stringMatching(/gold SQL does not compile: no such column: price/)]));
    expect(byItem('dev-4')[0]).toMatch(/needs string db_id, question and SQL/);
    expect(ds.problems.find((p) => p.file.endsWith('shop.sqlite'))!.message).toMatch(/schema read from SQLite/);
    expect(ds.databases[0].tables[0]).toEqual({
      name: 'item',
      columns: [
        { name: 'id', type: 'integer', primaryKey: true, sampleValues: [1, 2] },
        { name: 'name', type: 'text', primaryKey: false, sampleValues: ['pen', 'ink'] },
      ],
    });
  });

  it('loads minibench: train.json and dev.json with every database in dev_databases/', async () => {
    makeBird([{ question_id: 7, db_id: 'shop', question: 'q', SQL: 'SELECT 1' }]);
    writeFileSync(join(root, 'train.json'), JSON.stringify([{ question_id: 8, db_id: 'shop', question: 'q2', SQL: 'SELECT id FROM item' }]));
    const ds = await loadDataset({ format: 'minibench', path: root });
    expect(ds.items.map((i) => `${i.split}:${i.id}`)).toEqual(['dev:dev-7', 'train:train-8']);
  });

  it('refuses an unknown format and a missing folder', async () => {
    await expect(loadDataset({ format: 'wikisql' as 'bird', path: root })).rejects.toThrow(/unknown dataset format "wikisql"/);
    await expect(loadDataset({ format: 'spider', path: join(root, 'absent') })).rejects.toThrow(/dataset folder does not exist/);
  });

});
