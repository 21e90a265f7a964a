// Builds the real minibench sources into a temp folder and checks every rule of the minibench convention,
// then checks the builder's caching, determinism, atomic replacement and error reporting on small fixtures.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { hashDatasetFiles, parseCsvRows } from '@sqlsweep/datasets';
import {
  buildMinibench,
  BuildMinibenchResult,
  MinibenchBuildError,
  MinibenchItem,
  MinibenchManifest,
  MinibenchTablesEntry,
  MINIBENCH_DIFFICULTIES,
  splitStatements,
} from './build';

const SRC = path.join(__dirname, 'src');
const OWN_DATABASES = ['retail', 'hospital'];
const REQUIRED_FILES = ['schema.sql', 'data.sql', 'questions.json', 'database_description'];

// Another engineer adds databases beside ours; a folder still being written (files missing) is left out here
// so this suite tests what exists. The builder itself rejects such a folder with a "missing file" error.
const completeDatabases = fs
  .readdirSync(SRC, { withFileTypes: true })
  .filter((e) => e.isDirectory() && REQUIRED_FILES.every((f) => fs.existsSync(path.join(SRC, e.name, f))))
  .map((e) => e.name)
  .sort();

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'minibench-spec-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

function copySources(dbIds: string[], dest: string): string {
  for (const id of dbIds) fs.cpSync(path.join(SRC, id), path.join(dest, id), { recursive: true });
  return dest;
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

function sqlitePath(outDir: string, dbId: string): string {
  return path.join(outDir, 'dev_databases', dbId, `${dbId}.sqlite`);
}

function tableColumns(db: Database.Database, table: string): { name: string; pk: number }[] {
  return db.pragma(`table_info("${table}")`) as { name: string; pk: number }[];
}

function sqliteTables(db: Database.Database): string[] {
  return (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
      .all() as { name: string }[]
  ).map((r) => r.name);
}

describe('minibench built from data/minibench/src', () => {
  const srcDir = path.join(tmpRoot, 'real-src');
  const outDir = path.join(tmpRoot, 'real-dist');
  let result: BuildMinibenchResult;
  let dev: MinibenchItem[];
  let train: MinibenchItem[];
  let tables: MinibenchTablesEntry[];
  let manifest: MinibenchManifest;

  beforeAll(async () => {
    copySources(completeDatabases, srcDir);
    result = await buildMinibench({ srcDir, outDir });
    dev = readJson(path.join(outDir, 'dev.json'));
    train = readJson(path.join(outDir, 'train.json'));
    tables = readJson(path.join(outDir, 'dev_tables.json'));
    manifest = readJson(path.join(outDir, 'manifest.json'));
  });

  it('builds every complete database folder, ours included', () => {
    expect(completeDatabases).toEqual(expect.arrayContaining(OWN_DATABASES));
    expect(result.rebuilt).toBe(true);
    expect(result.counts).toEqual({ databases: completeDatabases.length, train: train.length, dev: dev.length });
    expect(Object.keys(manifest.databases).sort()).toEqual(completeDatabases);
    expect(manifest.sourceHash).toBe(result.sourceHash);
    expect(tables.map((t) => t.db_id).sort()).toEqual(completeDatabases);
  });

  it('numbers items per split in database order then file order, with BIRD fields', () => {
    for (const items of [dev, train]) {
      expect(items.map((i) => i.question_id)).toEqual(items.map((_, k) => k));
      const dbOrder = items.map((i) => completeDatabases.indexOf(i.db_id));
      expect(dbOrder).toEqual([...dbOrder].sort((a, b) => a - b));
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(['SQL', 'db_id', 'difficulty', 'evidence', 'question', 'question_id']);
        expect(MINIBENCH_DIFFICULTIES).toContain(item.difficulty);
        expect(item.question.length).toBeGreaterThan(10);
        expect(typeof item.evidence).toBe('string');
        expect(item.SQL).not.toMatch(/[\r\n\t]/);
      }
    }
  });

  it('writes gold files with one "SQL<TAB>db_id" line per item, in item order', () => {
    for (const [split, items] of [['dev', dev], ['train', train]] as const) {
      const lines = fs.readFileSync(path.join(outDir, `${split}_gold.sql`), 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toEqual(items.map((i) => `${i.SQL}\t${i.db_id}`));
    }
  });

  it('meets our share: >= 110 questions over retail and hospital, >= 76 train, >= 34 dev, difficulties spread', () => {
    const ownTrain = train.filter((i) => OWN_DATABASES.includes(i.db_id));
    const ownDev = dev.filter((i) => OWN_DATABASES.includes(i.db_id));
    expect(ownTrain.length + ownDev.length).toBeGreaterThanOrEqual(110);
    expect(ownTrain.length).toBeGreaterThanOrEqual(76);
    expect(ownDev.length).toBeGreaterThanOrEqual(34);
    const all = [...ownTrain, ...ownDev];
    const share = (d: string): number => all.filter((i) => i.difficulty === d).length / all.length;
    expect(share('simple')).toBeGreaterThan(0.35);
    expect(share('simple')).toBeLessThan(0.55);
    expect(share('moderate')).toBeGreaterThan(0.25);
    expect(share('moderate')).toBeLessThan(0.45);
    expect(share('challenging')).toBeGreaterThan(0.12);
    expect(share('challenging')).toBeLessThan(0.3);
    for (const db of OWN_DATABASES) {
      expect(ownDev.some((i) => i.db_id === db)).toBe(true);
      expect(ownTrain.some((i) => i.db_id === db)).toBe(true);
    }
  });

  it('our questions cover joins, nesting, grouping, ordering, set operations, aggregates, dates and evidence', () => {
    const own = [...train, ...dev].filter((i) => OWN_DATABASES.includes(i.db_id));
    const having = (re: RegExp): number => own.filter((i) => re.test(i.SQL)).length;
    expect(having(/\bJOIN\b/i)).toBeGreaterThanOrEqual(20);
    expect(having(/\(\s*SELECT\b/i)).toBeGreaterThanOrEqual(5);
    expect(having(/\bGROUP BY\b/i)).toBeGreaterThanOrEqual(15);
    expect(having(/\bORDER BY\b/i)).toBeGreaterThanOrEqual(10);
    expect(having(/\bUNION\b/i)).toBeGreaterThanOrEqual(1);
    expect(having(/\bINTERSECT\b/i)).toBeGreaterThanOrEqual(2);
    expect(having(/\bEXCEPT\b/i)).toBeGreaterThanOrEqual(2);
    expect(having(/\b(COUNT|SUM|AVG|MIN|MAX)\s*\(/i)).toBeGreaterThanOrEqual(30);
    expect(having(/\b(strftime|julianday|date)\s*\(|_date\b/i)).toBeGreaterThanOrEqual(15);
    expect(own.filter((i) => i.evidence !== '').length / own.length).toBeGreaterThan(0.6);
  });

  it('meets the whole-benchmark minimums with all four databases', () => {
    expect(completeDatabases.length).toBeGreaterThanOrEqual(4);
    expect(train.length + dev.length).toBeGreaterThanOrEqual(200);
    expect(train.length).toBeGreaterThanOrEqual(140);
    expect(dev.length).toBeGreaterThanOrEqual(60);
  });

  it('has a database with >= 8 tables and a table with > 30 columns (retail.products)', () => {
    expect(Math.max(...tables.map((t) => t.table_names_original.length))).toBeGreaterThanOrEqual(8);
    const retail = tables.find((t) => t.db_id === 'retail') as MinibenchTablesEntry;
    const productsIdx = retail.table_names_original.indexOf('products');
    expect(retail.column_names_original.filter(([t]) => t === productsIdx).length).toBeGreaterThan(30);
  });

  it('declares foreign keys in our databases and every database passes foreign_key_check and integrity_check', () => {
    for (const id of OWN_DATABASES) {
      expect((tables.find((t) => t.db_id === id) as MinibenchTablesEntry).foreign_keys.length).toBeGreaterThanOrEqual(8);
    }
    for (const id of completeDatabases) {
      const db = new Database(sqlitePath(outDir, id), { readonly: true });
      try {
        expect(db.pragma('foreign_key_check')).toEqual([]);
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.pragma('page_size', { simple: true })).toBe(4096);
        expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
      } finally {
        db.close();
      }
    }
  });

  it('holds hundreds to thousands of rows in each of our databases', () => {
    for (const id of OWN_DATABASES) {
      expect(manifest.databases[id].rows).toBeGreaterThan(5000);
      const db = new Database(sqlitePath(outDir, id), { readonly: true });
      try {
        const counts = sqliteTables(db).map(
          (t) => (db.prepare(`SELECT COUNT(*) AS n FROM "${t}"`).get() as { n: number }).n,
        );
        expect(counts.reduce((a, b) => a + b, 0)).toBe(manifest.databases[id].rows);
        expect(counts.length).toBe(manifest.databases[id].tables);
        expect(counts.filter((n) => n >= 500).length).toBeGreaterThanOrEqual(4);
        expect(Math.min(...counts)).toBeGreaterThan(0);
      } finally {
        db.close();
      }
    }
  });

  it('has NULLs where real data has them (our databases)', () => {
    const nullable: [string, string, string][] = [
      ['retail', 'customers', 'birth_date'],
      ['retail', 'orders', 'discount_code'],
      ['retail', 'shipments', 'delivered_date'],
      ['hospital', 'patients', 'blood_type'],
      ['hospital', 'admissions', 'discharge_date'],
      ['hospital', 'prescriptions', 'duration_days'],
    ];
    for (const [id, table, column] of nullable) {
      const db = new Database(sqlitePath(outDir, id), { readonly: true });
      try {
        const { nulls, total } = db
          .prepare(`SELECT SUM(${column} IS NULL) AS nulls, COUNT(*) AS total FROM ${table}`)
          .get() as { nulls: number; total: number };
        expect(nulls).toBeGreaterThan(0);
        expect(nulls).toBeLessThan(total);
      } finally {
        db.close();
      }
    }
  });

  it('runs every gold SQL to a non-empty result', () => {
    const connections = new Map(
      completeDatabases.map((id) => [id, new Database(sqlitePath(outDir, id), { readonly: true })]),
    );
    try {
      for (const item of [...train, ...dev]) {
        const rows = (connections.get(item.db_id) as Database.Database).prepare(item.SQL).all();
        if (rows.length === 0) throw new Error(`${item.db_id} question ${item.question_id}: no rows`);
      }
    } finally {
      for (const db of connections.values()) db.close();
    }
  });

  it('ships a description CSV for every table that describes exactly its columns', () => {
    for (const id of completeDatabases) {
      const db = new Database(sqlitePath(outDir, id), { readonly: true });
      try {
        const tableNames = sqliteTables(db);
        const descDir = path.join(outDir, 'dev_databases', id, 'database_description');
        expect(fs.readdirSync(descDir).sort()).toEqual(tableNames.map((t) => `${t}.csv`).sort());
        for (const t of tableNames) {
          const [header, ...rows] = parseCsvRows(fs.readFileSync(path.join(descDir, `${t}.csv`), 'utf8'));
          expect(header.fields).toEqual([
            'original_column_name',
            'column_name',
            'column_description',
            'data_format',
            'value_description',
          ]);
          expect(rows.map((r) => r.fields[0]).sort()).toEqual(tableColumns(db, t).map((c) => c.name).sort());
          for (const r of rows) expect(['integer', 'real', 'text', 'date', 'datetime']).toContain(r.fields[3]);
        }
      } finally {
        db.close();
      }
    }
  });

  it('writes dev_tables.json entries that match the SQLite schema', () => {
    for (const entry of tables) {
      const db = new Database(sqlitePath(outDir, entry.db_id), { readonly: true });
      try {
        const names = sqliteTables(db);
        expect(entry.table_names_original).toEqual(names);
        expect(entry.table_names).toHaveLength(names.length);
        const expectedColumns: [number, string][] = [[-1, '*']];
        names.forEach((t, ti) => tableColumns(db, t).forEach((c) => expectedColumns.push([ti, c.name])));
        expect(entry.column_names_original).toEqual(expectedColumns);
        expect(entry.column_names.map(([t]) => t)).toEqual(expectedColumns.map(([t]) => t));
        expect(entry.column_types).toHaveLength(expectedColumns.length);
        const indexOf = (table: string, column: string): number =>
          expectedColumns.findIndex(([ti, c]) => ti >= 0 && names[ti] === table && c === column);

        const expectedPks = names
          .map((t) => tableColumns(db, t).filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => indexOf(t, c.name)))
          .filter((pk) => pk.length > 0)
          .map((pk) => (pk.length === 1 ? pk[0] : pk));
        expect(entry.primary_keys).toEqual(expectedPks);

        const expectedFks: [number, number][] = [];
        for (const t of names) {
          for (const fk of db.pragma(`foreign_key_list("${t}")`) as { table: string; from: string; to: string }[]) {
            expectedFks.push([indexOf(t, fk.from), indexOf(fk.table, fk.to)]);
          }
        }
        expect(entry.foreign_keys).toEqual(expectedFks);
        expect(entry.foreign_keys.flat().every((i) => i > 0)).toBe(true);
      } finally {
        db.close();
      }
    }
  });

  it('does nothing when rebuilt from unchanged sources', async () => {
    const manifestPath = path.join(outDir, 'manifest.json');
    const before = fs.readFileSync(manifestPath, 'utf8');
    const again = await buildMinibench({ srcDir, outDir });
    expect(again).toEqual({ ...result, rebuilt: false });
    expect(fs.readFileSync(manifestPath, 'utf8')).toBe(before);
  });

  it('produces byte-identical SQLite files from the same sources', async () => {
    const secondOut = path.join(tmpRoot, 'real-dist-2');
    const second = await buildMinibench({ srcDir, outDir: secondOut, force: true });
    expect(second.sourceHash).toBe(result.sourceHash);
    for (const id of completeDatabases) {
      expect(fs.readFileSync(sqlitePath(secondOut, id)).equals(fs.readFileSync(sqlitePath(outDir, id)))).toBe(true);
    }
    for (const f of ['dev.json', 'train.json', 'dev_gold.sql', 'train_gold.sql', 'dev_tables.json', 'manifest.json']) {
      expect(fs.readFileSync(path.join(secondOut, f), 'utf8')).toBe(fs.readFileSync(path.join(outDir, f), 'utf8'));
    }
    // Two checkouts (or a rebuild) register as one dataset version: every stage key is shared between them.
    expect(await hashDatasetFiles(secondOut)).toBe(await hashDatasetFiles(outDir));
  });
});

// ------------------------------------------------------------------------------------------- fixtures

const DESCRIPTION_HEADER = 'original_column_name,column_name,column_description,data_format,value_description';

interface FixtureFiles {
  'schema.sql': string;
  'data.sql': string;
  'questions.json': string;
  descriptions: Record<string, string>;
}

function validFixture(): FixtureFiles {
  return {
    'schema.sql': [
      'CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, name TEXT NOT NULL);',
      'CREATE TABLE pets (pet_id INTEGER PRIMARY KEY, owner_id INTEGER REFERENCES owners (owner_id), species TEXT, age INTEGER);',
    ].join('\n'),
    'data.sql': [
      "INSERT INTO owners VALUES (1, 'Ann; the first'), (2, 'Bo''s'), (3, 'Cy');",
      '-- a comment; with a semicolon',
      "INSERT INTO pets VALUES (1, 1, 'cat', 3), (2, 1, 'dog', 5), (3, 2, 'cat', 7), (4, 3, 'fish', 1);",
    ].join('\n'),
    'questions.json': JSON.stringify([
      { question: 'How many cats are there?', evidence: '', SQL: "SELECT COUNT(*)\nFROM pets WHERE species = 'cat';", difficulty: 'simple', split: 'train' },
      { question: 'Who owns the oldest pet?', evidence: 'oldest refers to MAX(age)', SQL: 'SELECT o.name FROM owners AS o JOIN pets AS p ON p.owner_id = o.owner_id ORDER BY p.age DESC LIMIT 1', difficulty: 'moderate', split: 'dev' },
    ]),
    descriptions: {
      owners: `${DESCRIPTION_HEADER}\nowner_id,owner id,Owner identifier,integer,\nname,,"Owner's name, as registered",text,\n`,
      pets: `${DESCRIPTION_HEADER}\r\npet_id,pet id,Pet identifier,integer,\r\nowner_id,owner id,Owner of the pet,integer,\r\nspecies,,Kind of animal,text,"cat, dog or fish"\r\nage,,Age,integer,years\r\n`,
    },
  };
}

let fixtureCount = 0;
function writeFixture(files: FixtureFiles, dbId = 'pets'): { srcDir: string; outDir: string; dbDir: string } {
  const root = path.join(tmpRoot, `fixture-${++fixtureCount}`);
  const dbDir = path.join(root, 'src', dbId);
  fs.mkdirSync(path.join(dbDir, 'database_description'), { recursive: true });
  for (const f of ['schema.sql', 'data.sql', 'questions.json'] as const) fs.writeFileSync(path.join(dbDir, f), files[f]);
  for (const [table, csv] of Object.entries(files.descriptions)) {
    fs.writeFileSync(path.join(dbDir, 'database_description', `${table}.csv`), csv);
  }
  return { srcDir: path.join(root, 'src'), outDir: path.join(root, 'dist'), dbDir };
}

function withQuestions(mutate: (qs: Record<string, unknown>[]) => void): FixtureFiles {
  const files = validFixture();
  const qs = JSON.parse(files['questions.json']) as Record<string, unknown>[];
  mutate(qs);
  files['questions.json'] = JSON.stringify(qs);
  return files;
}

async function buildError(files: FixtureFiles): Promise<MinibenchBuildError> {
  const { srcDir, outDir } = writeFixture(files);
  try {
    await buildMinibench({ srcDir, outDir });
  } catch (err) {
    expect(err).toBeInstanceOf(MinibenchBuildError);
    expect(fs.readdirSync(path.dirname(outDir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
    return err as MinibenchBuildError;
  }
  throw new Error('expected the build to fail');
}

describe('buildMinibench on fixtures', () => {
  it('builds a valid fixture: one-line gold SQL, composite layout, descriptions copied byte for byte', async () => {
    const { srcDir, outDir, dbDir } = writeFixture(validFixture());
    const r = await buildMinibench({ srcDir, outDir });
    expect(r.counts).toEqual({ databases: 1, train: 1, dev: 1 });
    expect(fs.readFileSync(path.join(outDir, 'train_gold.sql'), 'utf8')).toBe("SELECT COUNT(*) FROM pets WHERE species = 'cat'\tpets\n");
    const copied = path.join(outDir, 'dev_databases', 'pets', 'database_description', 'pets.csv');
    expect(fs.readFileSync(copied).equals(fs.readFileSync(path.join(dbDir, 'database_description', 'pets.csv')))).toBe(true);
    const [entry] = readJson<MinibenchTablesEntry[]>(path.join(outDir, 'dev_tables.json'));
    expect(entry.column_names).toEqual([[-1, '*'], [0, 'owner id'], [0, 'name'], [1, 'pet id'], [1, 'owner id'], [1, 'species'], [1, 'age']]);
    expect(entry.column_types).toEqual(['text', 'integer', 'text', 'integer', 'integer', 'text', 'integer']);
    expect(entry.primary_keys).toEqual([1, 3]);
    expect(entry.foreign_keys).toEqual([[4, 1]]);
  });

  it('rebuilds when a source changes, and --force rebuilds unchanged sources', async () => {
    const { srcDir, outDir, dbDir } = writeFixture(validFixture());
    const first = await buildMinibench({ srcDir, outDir });
    expect((await buildMinibench({ srcDir, outDir, force: true })).rebuilt).toBe(true);
    fs.appendFileSync(path.join(dbDir, 'data.sql'), "\nINSERT INTO pets VALUES (5, 3, 'dog', 2);\n");
    const changed = await buildMinibench({ srcDir, outDir });
    expect(changed.rebuilt).toBe(true);
    expect(changed.sourceHash).not.toBe(first.sourceHash);
  });

  it('rebuilds when an output file has gone missing', async () => {
    const { srcDir, outDir } = writeFixture(validFixture());
    await buildMinibench({ srcDir, outDir });
    fs.rmSync(sqlitePath(outDir, 'pets'));
    expect((await buildMinibench({ srcDir, outDir })).rebuilt).toBe(true);
    expect(fs.existsSync(sqlitePath(outDir, 'pets'))).toBe(true);
  });

  it('keeps the previous build in place when a new build fails', async () => {
    const { srcDir, outDir, dbDir } = writeFixture(validFixture());
    const good = await buildMinibench({ srcDir, outDir });
    fs.writeFileSync(path.join(dbDir, 'questions.json'), '[{');
    await expect(buildMinibench({ srcDir, outDir })).rejects.toThrow(MinibenchBuildError);
    expect(readJson<MinibenchManifest>(path.join(outDir, 'manifest.json')).sourceHash).toBe(good.sourceHash);
    expect(fs.readdirSync(path.dirname(outDir)).sort()).toEqual(['dist', 'src']);
  });

  it('rejects bad JSON naming the file', async () => {
    const files = validFixture();
    files['questions.json'] = '[{"question": "x",]';
    const err = await buildError(files);
    expect(err.file).toMatch(/pets[/\\]questions\.json$/);
    expect(err.message).toMatch(/invalid JSON/);
  });

  it('rejects a missing field, naming file and item index', async () => {
    const err = await buildError(withQuestions((qs) => delete qs[1].evidence));
    expect(err.item).toBe(1);
    expect(err.message).toMatch(/questions\.json item 1: field "evidence" missing/);
  });

  it('rejects an unknown difficulty and an unknown split', async () => {
    const bad = await buildError(withQuestions((qs) => (qs[0].difficulty = 'hard')));
    expect(bad.message).toMatch(/item 0: unknown difficulty "hard"/);
    const split = await buildError(withQuestions((qs) => (qs[1].split = 'test')));
    expect(split.message).toMatch(/item 1: unknown split "test"/);
  });

  it('rejects unknown fields and duplicate questions', async () => {
    expect((await buildError(withQuestions((qs) => (qs[0].sql = 'x')))).message).toMatch(/item 0: unknown field\(s\): sql/);
    expect((await buildError(withQuestions((qs) => (qs[1].question = qs[0].question)))).message).toMatch(
      /item 1: same question as item 0/,
    );
  });

  it('rejects a gold SQL that fails, quoting the SQLite error', async () => {
    const err = await buildError(withQuestions((qs) => (qs[1].SQL = 'SELECT colour FROM pets')));
    expect(err.item).toBe(1);
    expect(err.message).toMatch(/gold SQL fails: no such column: colour/);
  });

  it('rejects a gold SQL that returns no rows', async () => {
    const err = await buildError(withQuestions((qs) => (qs[0].SQL = "SELECT name FROM owners WHERE name = 'Zed'")));
    expect(err.message).toMatch(/item 0: gold SQL returns no rows/);
  });

  it('rejects a gold SQL whose only row is NULL or 0 (an aggregate over nothing)', async () => {
    const sum = await buildError(withQuestions((qs) => (qs[0].SQL = "SELECT SUM(age) FROM pets WHERE species = 'cow'")));
    expect(sum.message).toMatch(/item 0: gold SQL returns a single row of NULL\/0/);
    const count = await buildError(withQuestions((qs) => (qs[1].SQL = "SELECT COUNT(*) FROM pets WHERE species = 'cow'")));
    expect(count.message).toMatch(/item 1: gold SQL returns a single row of NULL\/0/);
  });

  it('rejects a gold SQL that is not a query', async () => {
    const err = await buildError(withQuestions((qs) => (qs[0].SQL = 'DELETE FROM pets')));
    expect(err.message).toMatch(/item 0: gold SQL fails: not a query/);
  });

  it('rejects a LIMIT that cuts through a tie, and a LIMIT without ORDER BY', async () => {
    const tie = await buildError(withQuestions((qs) => (qs[1].SQL = "SELECT pet_id FROM pets WHERE species = 'cat' ORDER BY species LIMIT 1")));
    expect(tie.message).toMatch(/item 1: gold SQL is not deterministic/);
    const groupTie = await buildError(
      withQuestions((qs) => (qs[1].SQL = 'SELECT species FROM pets GROUP BY species ORDER BY COUNT(*) LIMIT 1')),
    );
    expect(groupTie.message).toMatch(/item 1: gold SQL is not deterministic/);
    const unordered = await buildError(withQuestions((qs) => (qs[1].SQL = 'SELECT name FROM owners LIMIT 1')));
    expect(unordered.message).toMatch(/item 1: gold SQL is not deterministic/);
  });

  it('rejects a CSV row naming a column the table does not have, with its line', async () => {
    const files = validFixture();
    files.descriptions.owners += 'nickname,,Nickname,text,\n';
    const err = await buildError(files);
    expect(err.file).toMatch(/owners\.csv$/);
    expect(err.line).toBe(4);
    expect(err.message).toMatch(/column nickname is not a column of table owners/);
  });

  it('rejects a CSV that leaves a column undescribed, or has the wrong number of fields', async () => {
    const missing = validFixture();
    missing.descriptions.pets = `${DESCRIPTION_HEADER}\npet_id,pet id,Pet identifier,integer,\n`;
    expect((await buildError(missing)).message).toMatch(/columns of pets not described: owner_id, species, age/);
    const short = validFixture();
    short.descriptions.owners = `${DESCRIPTION_HEADER}\nowner_id,owner id,Owner identifier\n`;
    expect((await buildError(short)).message).toMatch(/owners\.csv:2: expected 5 fields, found 3/);
    const unclosed = validFixture();
    unclosed.descriptions.owners = `${DESCRIPTION_HEADER}\nowner_id,owner id,"Owner identifier,integer,\n`;
    expect((await buildError(unclosed)).message).toMatch(/owners\.csv: unterminated quoted field starting on line 2/);
  });

  it('rejects a table with no description CSV, and a CSV for a table that does not exist', async () => {
    const noCsv = validFixture();
    delete noCsv.descriptions.pets;
    expect((await buildError(noCsv)).message).toMatch(/pets\.csv: table pets has no description CSV/);
    const extra = validFixture();
    extra.descriptions.vets = DESCRIPTION_HEADER;
    expect((await buildError(extra)).message).toMatch(/vets\.csv: describes table vets, which schema\.sql does not create/);
  });

  it('reports a failing statement of data.sql with its line number', async () => {
    const files = validFixture();
    files['data.sql'] += "\n\nINSERT INTO pets VALUES (9, 1, 'cat');";
    const err = await buildError(files);
    expect(err.file).toMatch(/data\.sql$/);
    expect(err.line).toBe(5);
    expect(err.message).toMatch(/table pets has 4 columns but 3 values were supplied/);
  });

  it('rejects rows that break a foreign key', async () => {
    const files = validFixture();
    files['data.sql'] += "\nINSERT INTO pets VALUES (9, 42, 'cat', 1);";
    expect((await buildError(files)).message).toMatch(/data\.sql: 1 foreign key violation\(s\); first: pets rowid 9 references missing owners row/);
  });

  it('rejects a foreign key to a table that schema.sql does not create', async () => {
    const files = validFixture();
    files['schema.sql'] += '\nCREATE TABLE visits (visit_id INTEGER PRIMARY KEY, vet_id INTEGER REFERENCES vets (vet_id));';
    files['data.sql'] += '\nINSERT INTO visits VALUES (1, NULL);';
    files.descriptions.visits = `${DESCRIPTION_HEADER}\nvisit_id,,Visit,integer,\nvet_id,,Vet,integer,\n`;
    const err = await buildError(files);
    expect(err.file).toMatch(/pets[/\\]schema\.sql$/);
    expect(err.message).toMatch(/visits\.vet_id references unknown table vets/);
  });

  it('rejects a folder that lacks a source file', async () => {
    const { srcDir, outDir, dbDir } = writeFixture(validFixture());
    fs.rmSync(path.join(dbDir, 'data.sql'));
    await expect(buildMinibench({ srcDir, outDir })).rejects.toThrow(/pets[/\\]data\.sql: missing file/);
  });
});

describe('splitStatements', () => {
  it('splits on top-level semicolons only and reports each statement line', () => {
    const script = [
      "INSERT INTO t VALUES ('a;b');",
      '-- note; not a statement',
      '/* block; comment */ INSERT INTO t VALUES ("x;y");',
      '',
      'CREATE TRIGGER trg AFTER INSERT ON t BEGIN',
      '  UPDATE t SET v = CASE WHEN v = 1 THEN 2 ELSE 3 END;',
      '  DELETE FROM u;',
      'END;',
      'SELECT 1',
    ].join('\n');
    const stmts = splitStatements(script);
    expect(stmts.map((s) => s.line)).toEqual([1, 3, 5, 9]);
    expect(stmts[2].sql).toMatch(/^CREATE TRIGGER[\s\S]*DELETE FROM u;\nEND;$/);
    expect(stmts[3].sql).toBe('SELECT 1');
  });
});
