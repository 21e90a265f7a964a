import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DatasetError, prepareDatasetVersion } from './index';
import { invalidUtf8Offset } from './text-decoding';

const TABLES = [{
  db_id: 'shop', table_names_original: ['item'], column_names_original: [[-1, '*'], [0, 'id'], [0, 'name']],
  column_types: ['text', 'number', 'text'], primary_keys: [1], foreign_keys: [],
}];

/** A one-database BIRD-layout folder (dev.json, dev_tables.json, dev_databases/shop/shop.sqlite) of 2000 rows. */
function birdFolder(root: string): string {
  const dir = mkdtempSync(join(root, 'bird-'));
  mkdirSync(join(dir, 'dev_databases', 'shop'), { recursive: true });
  const db = new Database(join(dir, 'dev_databases', 'shop', 'shop.sqlite'));
  db.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)');
  const insert = db.prepare('INSERT INTO item VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 0; i < 2000; i++) insert.run(i, `item number ${i} with a name long enough to fill pages`);
  })();
  db.close();
  writeFileSync(join(dir, 'dev.json'), JSON.stringify([{ question_id: 1, db_id: 'shop', question: 'Which items?', SQL: 'SELECT name FROM item' }]));
  writeFileSync(join(dir, 'dev_tables.json'), JSON.stringify(TABLES));
  return dir;
}

/** What `prepareDatasetVersion` throws, with the cache folder it must not have made. */
async function refusal(format: 'bird' | 'spider' | 'minibench', path: string, cacheDir: string): Promise<Error> {
  const err = await prepareDatasetVersion({ format, path, dataDir: cacheDir }).then(() => undefined, (e: unknown) => e as Error);
  expect(err).toBeInstanceOf(DatasetError);
  expect(existsSync(cacheDir)).toBe(false); // no replica written
  return err!;
}

describe('datasets that must be refused before anything is written', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sqlsweep-refusals-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('refuses a .sqlite file that is not a database, naming it', async () => {
    const dir = birdFolder(root);
    const file = join(dir, 'dev_databases', 'shop', 'shop.sqlite');
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    const err = await refusal('bird', dir, join(root, 'cache-1'));
    expect(err.message).toBe(`${file}: SQLite cannot read database shop (file is not a database); replace the file with an intact copy`);
  });

  it('refuses a database whose header is intact but whose pages are damaged', async () => {
    const dir = birdFolder(root);
    const file = join(dir, 'dev_databases', 'shop', 'shop.sqlite');
    const bytes = readFileSync(file);
    bytes.fill(0xa5, 2 * 4096); // page 1 (schema) and 2 intact: the table opens, its rows do not
    writeFileSync(file, bytes);
    const err = await refusal('bird', dir, join(root, 'cache-2'));
    expect(err.message).toMatch(new RegExp(`^${file}: SQLite cannot read database shop \\(.*malformed.*\\)`));
  });

  it('refuses a dev.json that is not valid UTF-8, naming the file and the byte offset', async () => {
    const dir = birdFolder(root);
    const text = JSON.stringify([{ question_id: 1, db_id: 'shop', question: 'Caf\u00e9 items?', SQL: 'SELECT name FROM item' }]);
    const latin1 = Buffer.from(text, 'latin1'); // é as the single byte 0xe9
    writeFileSync(join(dir, 'dev.json'), latin1);
    const err = await refusal('bird', dir, join(root, 'cache-3'));
    const offset = latin1.indexOf(0xe9);
    expect(err.message).toBe(`${join(dir, 'dev.json')}: not valid UTF-8 at byte offset ${offset} (bytes 0xe9 0x20 0x69 0x74); re-save the file as UTF-8`);
  });

  it('refuses a Spider dev_gold.sql that is not valid UTF-8', async () => {
    const dir = birdFolder(root);
    mkdirSync(join(dir, 'database'));
    writeFileSync(join(dir, 'tables.json'), JSON.stringify(TABLES));
    writeFileSync(join(dir, 'dev.json'), JSON.stringify([{ db_id: 'shop', question: 'q', query: 'SELECT name FROM item' }]));
    writeFileSync(join(dir, 'dev_gold.sql'), Buffer.concat([Buffer.from("SELECT name FROM item WHERE name = '"), Buffer.from([0xc3, 0x28]), Buffer.from("'\tshop\n")]));
    const err = await refusal('spider', dir, join(root, 'cache-4'));
    expect(err.message).toMatch(/dev_gold\.sql: not valid UTF-8 at byte offset 36 \(bytes 0xc3 0x28/);
  });

  it('refuses a Spider folder without tables.json, saying what is missing', async () => {
    const dir = birdFolder(root);
    const err = await refusal('spider', dir, join(root, 'cache-5'));
    expect(err.message).toBe(`${join(dir, 'tables.json')}: file is missing: a Spider folder needs tables.json, the schema of every database`);
  });
});

describe('invalidUtf8Offset', () => {
  it('finds the first byte that does not start a valid sequence, as a fatal WHATWG decoder would reject it', () => {
    expect(invalidUtf8Offset(Buffer.from('plain caf\u00e9 \u{1F600}', 'utf8'))).toBeUndefined();
    expect(invalidUtf8Offset(Buffer.from([0x61, 0xff]))).toBe(1);
    expect(invalidUtf8Offset(Buffer.from([0x61, 0xc0, 0xaf]))).toBe(1); // overlong '/'
    expect(invalidUtf8Offset(Buffer.from([0x61, 0x62, 0xed, 0xa0, 0x80]))).toBe(2); // a UTF-16 surrogate
    expect(invalidUtf8Offset(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0); // past U+10FFFF
    expect(invalidUtf8Offset(Buffer.from([0x61, 0xe2, 0x82]))).toBe(1); // cut short at the end
  });
});
