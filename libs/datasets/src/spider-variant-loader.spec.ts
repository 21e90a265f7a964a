import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { prepareWithDqsFallback } from '@sqlsweep/sql-sandbox';
import { DatasetError, loadDataset, prepareDatasetVersion, versionHashOfDataset, type Dataset, type DatasetSourceFormat } from './index';

const SAMPLES = resolve(__dirname, '../../../test/fixtures/benchmark-samples');
const SPIDER = join(SAMPLES, 'spider-sample');
const SYN = join(SAMPLES, 'spider-syn-sample');
const REALISTIC = join(SAMPLES, 'spider-realistic-sample');
const DK = join(SAMPLES, 'spider-dk-sample');

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, string>>;

/** Runs every dev item's gold query on its database (Spider's double-quoted strings allowed); returns the ids of those that fail. */
function failingGold(ds: Dataset): string[] {
  const paths = new Map(ds.databases.map((d) => [d.dbId, d.sqlitePath]));
  const failing: string[] = [];
  for (const item of ds.items.filter((i) => i.split === 'dev')) {
    const db = new Database(paths.get(item.dbId)!, { readonly: true });
    try {
      prepareWithDqsFallback(db, item.goldSql).all();
    } catch {
      failing.push(item.id);
    } finally {
      db.close();
    }
  }
  return failing;
}

async function loadError(format: DatasetSourceFormat, path: string, spiderPath?: string): Promise<DatasetError> {
  const err = await loadDataset({ format, path, spiderPath }).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(DatasetError);
  return err as DatasetError;
}

describe('Spider-Syn over the Spider sample', () => {
  let ds: Dataset;
  beforeAll(async () => {
    ds = await loadDataset({ format: 'spider-syn', path: SYN, spiderPath: SPIDER });
  });

  it('evaluates the 297 synonym-rewritten questions, not Spider\'s, on Spider\'s databases, with hardness', () => {
    const raw = readJson(join(SYN, 'dev.json'));
    const dev = ds.items.filter((i) => i.split === 'dev');
    expect(dev).toHaveLength(297);
    expect(ds.format).toBe('spider'); // scored with Spider's semantics
    expect(ds.sourceFormat).toBe('spider-syn');
    expect(dev[0]).toMatchObject({ id: 'dev-0', dbId: 'concert_singer', question: 'How many vocalists do we have?', goldSql: 'SELECT count(*) FROM singer', hardness: 'easy' });
    expect(dev.map((i) => i.question)).toEqual(raw.map((e) => e.SpiderSynQuestion));
    expect(dev.filter((i, n) => i.question === raw[n].SpiderQuestion).length).toBeLessThan(dev.length / 2);
    expect(ds.databases.map((d) => d.dbId)).toEqual(['car_1', 'concert_singer', 'orchestra', 'pets_1', 'student_transcripts_tracking']);
    expect(ds.databases.every((d) => d.sqlitePath.startsWith(SPIDER))).toBe(true);
    expect(ds.problems.filter((p) => p.file === 'dev.json')).toEqual([]);
  });

  it('runs every gold query on the Spider databases', () => {
    expect(failingGold(ds)).toEqual([]);
  });

  it('draws the train split from Spider\'s own training questions', () => {
    const train = ds.items.filter((i) => i.split === 'train');
    expect(train).toHaveLength(7000);
    expect(train[0].question).toBe(readJson(join(SPIDER, 'train_spider.json'))[0].question);
  });

  it('makes a version of the variant\'s questions plus Spider\'s schemas, databases and training questions only', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'sqlsweep-syn-'));
    try {
      const version = await prepareDatasetVersion({ format: 'spider-syn', path: SYN, spiderPath: SPIDER, dataDir: cache });
      const paths = version.files.map((f) => f.path);
      expect(paths).toContain('dev.json');
      expect(paths).toContain('tables.json');
      expect(paths).toContain('train_spider.json');
      expect(paths).toContain('database/car_1/car_1.sqlite');
      expect(paths).not.toContain('dev_gold.sql'); // Spider's gold is for Spider's own dev questions
      expect(paths).not.toContain('README.md');
      expect(version.files.find((f) => f.path === 'dev.json')!.absPath).toBe(join(SYN, 'dev.json'));
      expect(version.databaseFiles.get('car_1')!.path).toBe('database/car_1/car_1.sqlite');
      expect(version.replicas.size).toBe(5);
      const spider = await prepareDatasetVersion({ format: 'spider', path: SPIDER, dataDir: cache });
      expect(version.versionHash).not.toBe(spider.versionHash);
      expect(await versionHashOfDataset(ds)).toBe(version.versionHash);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe('Spider-Realistic over the Spider sample', () => {
  it('loads its 137 questions, each running on the Spider databases', async () => {
    const ds = await loadDataset({ format: 'spider-realistic', path: REALISTIC, spiderPath: SPIDER });
    const raw = readJson(join(REALISTIC, 'dev.json'));
    const dev = ds.items.filter((i) => i.split === 'dev');
    expect(dev).toHaveLength(137);
    expect(dev.map((i) => [i.dbId, i.question, i.goldSql])).toEqual(raw.map((e) => [e.db_id, e.question, e.query]));
    expect(dev[0].question).toBe('Show name, country, age for all singers from the oldest to the youngest.');
    expect(dev.every((i) => i.hardness !== undefined)).toBe(true);
    expect(ds.problems.filter((p) => p.file === 'dev.json')).toEqual([]);
    expect(failingGold(ds)).toEqual([]);
  });
});

describe('Spider-DK: its tables.json and new databases over Spider\'s', () => {
  it('loads its questions on Spider\'s databases and its own new ones, with its schemas', async () => {
    const ds = await loadDataset({ format: 'spider-dk', path: DK, spiderPath: SPIDER });
    const dev = ds.items.filter((i) => i.split === 'dev');
    expect(dev).toHaveLength(136);
    expect(dev.map((i) => i.question)).toEqual(readJson(join(DK, 'Spider-DK.json')).map((e) => e.question));
    expect(ds.databases.map((d) => d.dbId)).toEqual(['car_1', 'concert_singer', 'new_pets_1', 'orchestra', 'pets_1', 'student_transcripts_tracking']);
    const pets = ds.databases.find((d) => d.dbId === 'new_pets_1')!;
    expect(pets.sqlitePath).toBe(join(DK, 'database', 'new_pets_1', 'new_pets_1.sqlite'));
    // new_pets_1's schema comes from DK's tables.json (Spider's has no entry for it), not from SQLite.
    expect(ds.problems.filter((p) => /no tables.json entry/.test(p.message))).toEqual([]);
    expect(pets.tables.find((t) => t.name === 'Pets')!.columns.map((c) => c.name)).toContain('birthdate');
    // The release's one broken gold query (a missing comma: "T1.LName  T1.age") is flagged, the item kept for the record.
    expect(ds.problems.filter((p) => p.file === 'Spider-DK.json')).toEqual([
      { file: 'Spider-DK.json', item: 'dev-31', message: 'gold SQL does not compile: near ".": syntax error' },
    ]);
    expect(failingGold(ds)).toEqual(['dev-31']);
  });

  it('puts DK\'s tables.json and databases in the version, Spider\'s databases beside them', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'sqlsweep-dk-'));
    try {
      const version = await prepareDatasetVersion({ format: 'spider-dk', path: DK, spiderPath: SPIDER, dataDir: cache });
      const byPath = new Map(version.files.map((f) => [f.path, f.absPath]));
      expect(byPath.get('Spider-DK.json')).toBe(join(DK, 'Spider-DK.json'));
      expect(byPath.get('tables.json')).toBe(join(DK, 'tables.json'));
      expect(byPath.get('database/new_pets_1/new_pets_1.sqlite')).toBe(join(DK, 'database', 'new_pets_1', 'new_pets_1.sqlite'));
      expect(byPath.get('database/car_1/car_1.sqlite')).toBe(join(SPIDER, 'database', 'car_1', 'car_1.sqlite'));
      expect(version.replicas.size).toBe(6);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe('Spider variants: refusals name the file, the field and the line', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sqlsweep-variants-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function folderWith(name: string, text: string): string {
    const dir = mkdtempSync(join(root, 'syn-'));
    writeFileSync(join(dir, name), text);
    return dir;
  }

  it('without --spider, names the missing tables.json and says how to give the Spider folder', async () => {
    const err = await loadError('spider-syn', SYN);
    expect(err.message).toBe(`${join(SYN, 'tables.json')}: file is missing: the schema of every database; Spider-Syn runs on Spider's databases: `
      + 'give the Spider folder with --spider <dir>, or put them in this folder');
  });

  it('names a --spider folder that does not exist, or one without its databases', async () => {
    const absent = join(root, 'no-such-spider');
    expect((await loadError('spider-syn', SYN, absent)).message).toBe(`${absent}: folder is missing: the --spider folder does not exist`);
    const noDatabases = mkdtempSync(join(root, 'spider-'));
    cpSync(join(SPIDER, 'tables.json'), join(noDatabases, 'tables.json'));
    expect((await loadError('spider-realistic', REALISTIC, noDatabases)).message)
      .toMatch(new RegExp(`^${join(noDatabases, 'database')}: folder is missing: the databases`));
  });

  it('names the missing questions file', async () => {
    const empty = mkdtempSync(join(root, 'empty-'));
    expect((await loadError('spider-dk', empty, SPIDER)).message)
      .toBe(`${join(empty, 'Spider-DK.json')}: file is missing: a Spider-DK folder holds its questions in Spider-DK.json or dev.json`);
  });

  it('refuses Spider\'s own dev.json given as Spider-Syn, naming the field and the line of the first item', async () => {
    const dir = folderWith('dev.json', readFileSync(join(SPIDER, 'dev.json'), 'utf8'));
    const err = await loadError('spider-syn', dir, SPIDER);
    expect(err.message).toBe(`${join(dir, 'dev.json')}: no entry is a Spider-Syn item (db_id, SpiderSynQuestion, query); `
      + 'first: item dev-0 (line 2: needs a string SpiderSynQuestion (Spider-Syn\'s question); item skipped)');
  });

  it('flags a bad item with its field and line and loads the others', async () => {
    const text = '[\n  {"db_id": "pets_1", "SpiderQuestion": "How many pets?", "SpiderSynQuestion": "How many animals?", "query": "SELECT count(*) FROM pets"},\n'
      + '  {"db_id": "pets_1",\n   "SpiderQuestion": "q", "query": 3}\n]\n';
    const ds = await loadDataset({ format: 'spider-syn', path: folderWith('dev.json', text), spiderPath: SPIDER });
    expect(ds.items.filter((i) => i.split === 'dev').map((i) => i.question)).toEqual(['How many animals?']);
    expect(ds.problems.filter((p) => p.file === 'dev.json')).toEqual([
      { file: 'dev.json', item: 'dev-1', message: 'line 3: needs a string SpiderSynQuestion (Spider-Syn\'s question), query; item skipped' },
    ]);
  });

  it('names the line and column of malformed JSON', async () => {
    const dir = folderWith('dev.json', '[\n  {"db_id": "pets_1",\n   "question" "q"}\n]\n');
    expect((await loadError('spider-realistic', dir, SPIDER)).message).toMatch(new RegExp(`^${join(dir, 'dev.json')}: malformed JSON at line 3, column 15: `));
  });

  it('refuses --spider with a format that does not take one', async () => {
    expect((await loadError('bird', join(SAMPLES, 'bird-sample'), SPIDER)).message).toMatch(/a Spider folder is given for format bird/);
  });
});
