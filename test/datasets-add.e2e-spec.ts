import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { E2eStack } from './support/e2e-stack';

jest.setTimeout(180_000);

const TABLES = [{
  db_id: 'shop', table_names_original: ['item'], column_names_original: [[-1, '*'], [0, 'id'], [0, 'name']],
  column_types: ['text', 'number', 'text'], primary_keys: [1], foreign_keys: [],
}];

/** A one-database BIRD-layout folder whose dev.json holds these gold queries (items dev-1, dev-2, ...). */
function birdFolder(parent: string, goldSql: string[]): string {
  const dir = mkdtempSync(join(parent, 'dataset-'));
  mkdirSync(join(dir, 'dev_databases', 'shop'), { recursive: true });
  const db = new Database(join(dir, 'dev_databases', 'shop', 'shop.sqlite'));
  db.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'pen'), (2, 'ink');");
  db.close();
  writeFileSync(join(dir, 'dev.json'), JSON.stringify(goldSql.map((SQL, i) => ({ question_id: i + 1, db_id: 'shop', question: `question ${i + 1}`, SQL }))));
  writeFileSync(join(dir, 'dev_tables.json'), JSON.stringify(TABLES));
  return dir;
}

const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
const TOO_MANY_ROWS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100001) SELECT x FROM c';
const ATTACH = "ATTACH DATABASE ':memory:' AS scratch";

describe('sqlsweep datasets add', () => {
  const stack = new E2eStack({ SQLSWEEP_SQL_DEADLINE_MS: '4000', SQLSWEEP_SANDBOX_SIZE: '2', SQLSWEEP_LLM_SIM_URL: 'http://127.0.0.1:9' });
  let folders: string;
  beforeAll(async () => {
    await stack.start(false);
    folders = mkdtempSync(join(stack.dataDir, 'folders-'));
  });
  afterAll(() => stack.stop());

  /** Refused: exit 2, one line naming the file on stderr (no stack trace), nothing in Postgres or the replica folder. */
  async function expectRefused(args: string[], message: RegExp): Promise<void> {
    const r = await stack.cli(['datasets', 'add', ...args]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    for (const table of ['datasets', 'dataset_versions', 'dataset_items', 'dataset_databases'] as const) {
      const row = await stack.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect([table, Number(row.n)]).toEqual([table, 0]);
    }
    expect(existsSync(join(stack.dataDir, 'replicas'))).toBe(false);
  }

  it('refuses a corrupt .sqlite, naming it, and writes nothing', async () => {
    const dir = birdFolder(folders, ['SELECT name FROM item']);
    const file = join(dir, 'dev_databases', 'shop', 'shop.sqlite');
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    await expectRefused(['shop', '--format', 'bird', '--path', dir],
      new RegExp(`^sqlsweep: datasets add: ${file}: SQLite cannot read database shop \\(file is not a database\\); .*nothing was registered\n$`));
  });

  it('refuses a dev.json that is not UTF-8, naming the file and the byte offset, and writes nothing', async () => {
    const dir = birdFolder(folders, ['SELECT name FROM item']);
    const bytes = Buffer.from(JSON.stringify([{ question_id: 1, db_id: 'shop', question: 'Caf\u00e9?', SQL: 'SELECT name FROM item' }]), 'latin1');
    writeFileSync(join(dir, 'dev.json'), bytes);
    await expectRefused(['shop', '--format', 'bird', '--path', dir],
      new RegExp(`^sqlsweep: datasets add: ${join(dir, 'dev.json')}: not valid UTF-8 at byte offset ${bytes.indexOf(0xe9)} `));
  });

  it('refuses a Spider folder without tables.json with a clear message, not a stack trace', async () => {
    const dir = birdFolder(folders, ['SELECT name FROM item']);
    writeFileSync(join(dir, 'dev.json'), JSON.stringify([{ db_id: 'shop', question: 'q', query: 'SELECT name FROM item' }]));
    await expectRefused(['shop', '--format', 'spider', '--path', dir],
      new RegExp(`^sqlsweep: datasets add: ${join(dir, 'tables.json')}: file is missing: a Spider folder needs tables.json`));
  });

  it('flags, per item, gold SQL that never ends, is refused by the gate or returns too many rows; sweeps leave those items out', async () => {
    const dir = birdFolder(folders, ['SELECT name FROM item ORDER BY id', RUNAWAY, ATTACH, TOO_MANY_ROWS]);
    const r = await stack.cli(['datasets', 'add', 'gold-check', '--format', 'bird', '--path', dir]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toContain('gold SQL flagged for 3 item(s) (1 timeout, 1 refused, 1 truncated); sweeps leave these items out:');
    expect(r.stdout).toMatch(/\n {4}dev-2: timeout: gold SQL timed out after \d+ ms\n/);
    expect(r.stdout).toMatch(/\n {4}dev-3: refused: gold SQL refused by the sandbox: .*ATTACH/i);
    expect(r.stdout).toMatch(/\n {4}dev-4: truncated: gold SQL returns more than the sandbox keeps \(100000 rows kept\)/);

    const stored = await stack.db.selectFrom('dataset_items').select(['item_id', 'gold_flag']).orderBy('position').execute();
    expect(stored).toEqual([
      { item_id: 'dev-1', gold_flag: null },
      { item_id: 'dev-2', gold_flag: 'timeout' },
      { item_id: 'dev-3', gold_flag: 'refused' },
      { item_id: 'dev-4', gold_flag: 'truncated' },
    ]);

    // The planner sees only the item whose gold can be scored against.
    const config = stack.writeFile('gold-check.yaml', [
      'name: gold-check', 'dataset: gold-check', 'split: dev', 'models: [sim-strong]', 'pipelines:', '  - pipeline: zero-shot', '',
    ].join('\n'));
    const dry = await stack.cli(['run', config, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/ dev: 1 items x 1 variants/);

    // Registering the same content again keeps the flags and runs no gold query.
    const again = await stack.cli(['datasets', 'add', 'gold-check', '--format', 'bird', '--path', dir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^already registered: gold-check@/);
    expect(again.stdout).toContain('gold SQL flagged for 3 item(s) (1 timeout, 1 refused, 1 truncated)');
    rmSync(dir, { recursive: true, force: true });
  });
});
