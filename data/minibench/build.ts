// Builds the bundled minibench benchmark from data/minibench/src/<db_id>/ into BIRD layout under dist/.
// Run: node -r @swc-node/register data/minibench/build.ts [--force] [--src DIR] [--out DIR]
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';

/** Bump when the output format or the validation rules change, so old builds are not reused. */
const BUILDER_FORMAT_VERSION = '1';
const SQLITE_PAGE_SIZE = 4096;

export const MINIBENCH_DIFFICULTIES = ['simple', 'moderate', 'challenging'] as const;
export const MINIBENCH_SPLITS = ['train', 'dev'] as const;
export type MinibenchDifficulty = (typeof MINIBENCH_DIFFICULTIES)[number];
export type MinibenchSplit = (typeof MINIBENCH_SPLITS)[number];

const DESCRIPTION_HEADER = [
  'original_column_name',
  'column_name',
  'column_description',
  'data_format',
  'value_description',
] as const;
// The convention names integer/real/text/date; BIRD's own files also use datetime for timestamps.
const DATA_FORMATS = ['integer', 'real', 'text', 'date', 'datetime'] as const;

export interface BuildMinibenchOptions {
  /** Folder with one sub-folder per database; defaults to data/minibench/src. */
  srcDir?: string;
  /** Output folder (replaced atomically); defaults to data/minibench/dist. */
  outDir?: string;
  /** Rebuild even when the manifest says the outputs are current. */
  force?: boolean;
}

export interface MinibenchCounts {
  databases: number;
  train: number;
  dev: number;
}

export interface BuildMinibenchResult {
  outDir: string;
  sourceHash: string;
  rebuilt: boolean;
  counts: MinibenchCounts;
}

/** A question as written in src/<db_id>/questions.json. */
export interface MinibenchSourceQuestion {
  question: string;
  evidence: string;
  SQL: string;
  difficulty: MinibenchDifficulty;
  split: MinibenchSplit;
}

/** A built item in dist/dev.json and dist/train.json (BIRD item shape). */
export interface MinibenchItem {
  question_id: number;
  db_id: string;
  question: string;
  evidence: string;
  SQL: string;
  difficulty: MinibenchDifficulty;
}

/** An entry of dist/dev_tables.json (Spider/BIRD tables.json shape). */
export interface MinibenchTablesEntry {
  db_id: string;
  table_names_original: string[];
  table_names: string[];
  column_names_original: [number, string][];
  column_names: [number, string][];
  column_types: string[];
  primary_keys: (number | number[])[];
  foreign_keys: [number, number][];
}

/** No build time or path in it: two builds of the same sources are byte-identical, so they register as one version. */
export interface MinibenchManifest {
  sourceHash: string;
  databases: Record<string, { tables: number; rows: number }>;
  counts: MinibenchCounts;
}

/** A problem in the benchmark sources; `file` is the offending source file, `item` the question index if any. */
export class MinibenchBuildError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly item?: number,
    readonly line?: number,
  ) {
    super(
      `${file}${line !== undefined ? `:${line}` : ''}${item !== undefined ? ` item ${item}` : ''}: ${detail}`,
    );
    this.name = 'MinibenchBuildError';
  }
}

export async function buildMinibench(opts: BuildMinibenchOptions = {}): Promise<BuildMinibenchResult> {
  const srcDir = path.resolve(opts.srcDir ?? path.join(__dirname, 'src'));
  const outDir = path.resolve(opts.outDir ?? path.join(__dirname, 'dist'));
  const dbIds = listDatabaseFolders(srcDir);
  const sourceHash = hashSources(srcDir);

  if (!opts.force) {
    const current = readCurrentManifest(outDir, sourceHash);
    if (current) return { outDir, sourceHash, rebuilt: false, counts: current.counts };
  }

  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  const tmpDir = `${outDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(tmpDir);
  try {
    const counts = buildInto(srcDir, tmpDir, dbIds, sourceHash);
    replaceDirectory(tmpDir, outDir);
    return { outDir, sourceHash, rebuilt: true, counts };
  } catch (err) {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    throw err;
  }
}

function listDatabaseFolders(srcDir: string): string[] {
  if (!fs.existsSync(srcDir)) throw new MinibenchBuildError(srcDir, 'source folder does not exist');
  const ids = fs
    .readdirSync(srcDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  if (ids.length === 0) throw new MinibenchBuildError(srcDir, 'no database folders');
  for (const id of ids) {
    if (!/^[a-z][a-z0-9_]*$/.test(id)) {
      throw new MinibenchBuildError(path.join(srcDir, id), 'db_id folder names must match [a-z][a-z0-9_]*');
    }
  }
  return ids;
}

function listFilesRecursive(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFilesRecursive(full));
    else if (e.isFile()) out.push(full);
  }
  return out;
}

/** sha256 over the builder format version, the builder's own source and every source file (path and bytes). */
function hashSources(srcDir: string): string {
  const hash = createHash('sha256');
  hash.update(`minibench-builder-v${BUILDER_FORMAT_VERSION}\0`);
  hash.update(fs.readFileSync(__filename));
  const files = listFilesRecursive(srcDir)
    .map((f) => path.relative(srcDir, f).split(path.sep).join('/'))
    .sort();
  for (const rel of files) {
    const bytes = fs.readFileSync(path.join(srcDir, rel));
    hash.update(`\0${rel}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

/** Returns the manifest when outDir was built from these exact sources and every output file is present. */
function readCurrentManifest(outDir: string, sourceHash: string): MinibenchManifest | undefined {
  const manifestPath = path.join(outDir, 'manifest.json');
  if (!fs.existsSync(manifestPath)) return undefined;
  let manifest: MinibenchManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as MinibenchManifest;
  } catch {
    return undefined;
  }
  if (manifest.sourceHash !== sourceHash || !manifest.databases) return undefined;
  const required = ['dev.json', 'train.json', 'dev_gold.sql', 'train_gold.sql', 'dev_tables.json'];
  for (const dbId of Object.keys(manifest.databases)) {
    required.push(path.join('dev_databases', dbId, `${dbId}.sqlite`));
  }
  return required.every((f) => fs.existsSync(path.join(outDir, f))) ? manifest : undefined;
}

/** Swaps the freshly built folder into place; readers see either the old or the new build, never a mix. */
function replaceDirectory(tmpDir: string, outDir: string): void {
  const oldDir = `${outDir}.old-${process.pid}-${randomBytes(4).toString('hex')}`;
  const hadOld = fs.existsSync(outDir);
  if (hadOld) fs.renameSync(outDir, oldDir);
  fs.renameSync(tmpDir, outDir);
  if (hadOld) fs.rmSync(oldDir, { recursive: true, force: true });
}

function buildInto(srcDir: string, outDir: string, dbIds: string[], sourceHash: string): MinibenchCounts {
  const items: Record<MinibenchSplit, MinibenchItem[]> = { train: [], dev: [] };
  const tables: MinibenchTablesEntry[] = [];
  const databases: MinibenchManifest['databases'] = {};

  for (const dbId of dbIds) {
    const dbSrc = path.join(srcDir, dbId);
    const dbOut = path.join(outDir, 'dev_databases', dbId);
    fs.mkdirSync(path.join(dbOut, 'database_description'), { recursive: true });
    const sqlitePath = path.join(dbOut, `${dbId}.sqlite`);

    const stats = createDatabase(dbSrc, sqlitePath);
    databases[dbId] = stats;

    const db = new Database(sqlitePath, { readonly: true, fileMustExist: true });
    try {
      const schemaFile = path.join(dbSrc, 'schema.sql');
      const schema = readSchema(db, schemaFile);
      const descriptions = readDescriptions(dbSrc, schema, path.join(dbOut, 'database_description'));
      tables.push(toTablesEntry(dbId, schemaFile, schema, descriptions));
      const questions = readQuestions(path.join(dbSrc, 'questions.json'));
      checkGoldQueries(db, path.join(dbSrc, 'questions.json'), questions);
      for (const q of questions) {
        items[q.split].push({
          question_id: items[q.split].length,
          db_id: dbId,
          question: q.question,
          evidence: q.evidence,
          SQL: q.SQL,
          difficulty: q.difficulty,
        });
      }
    } finally {
      db.close();
    }
  }

  const counts: MinibenchCounts = { databases: dbIds.length, train: items.train.length, dev: items.dev.length };
  for (const split of MINIBENCH_SPLITS) {
    fs.writeFileSync(path.join(outDir, `${split}.json`), `${JSON.stringify(items[split], null, 1)}\n`);
    fs.writeFileSync(
      path.join(outDir, `${split}_gold.sql`),
      items[split].map((i) => `${i.SQL}\t${i.db_id}\n`).join(''),
    );
  }
  fs.writeFileSync(path.join(outDir, 'dev_tables.json'), `${JSON.stringify(tables, null, 1)}\n`);
  const manifest: MinibenchManifest = { sourceHash, databases, counts };
  fs.writeFileSync(path.join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return counts;
}

// ---------------------------------------------------------------------------------------------- SQLite file

/** Creates the SQLite file from schema.sql and data.sql; same sources give a byte-identical file. */
function createDatabase(dbSrc: string, sqlitePath: string): { tables: number; rows: number } {
  const schemaFile = path.join(dbSrc, 'schema.sql');
  const dataFile = path.join(dbSrc, 'data.sql');
  for (const f of [schemaFile, dataFile]) {
    if (!fs.existsSync(f)) throw new MinibenchBuildError(f, 'missing file');
  }
  const db = new Database(sqlitePath);
  try {
    db.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
    db.pragma('journal_mode = DELETE');
    // Checked once after loading (below), so data.sql may insert tables in any order.
    db.pragma('foreign_keys = OFF');
    db.transaction(() => {
      runScript(db, schemaFile);
      runScript(db, dataFile);
    })();

    const violations = db.pragma('foreign_key_check') as { table: string; rowid: number; parent: string }[];
    if (violations.length > 0) {
      const v = violations[0];
      throw new MinibenchBuildError(
        dataFile,
        `${violations.length} foreign key violation(s); first: ${v.table} rowid ${v.rowid} references missing ${v.parent} row`,
      );
    }
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new MinibenchBuildError(dataFile, `integrity_check: ${String(integrity)}`);

    const tableNames = listTables(db);
    if (tableNames.length === 0) throw new MinibenchBuildError(schemaFile, 'no tables created');
    let rows = 0;
    for (const t of tableNames) {
      rows += (db.prepare(`SELECT COUNT(*) AS n FROM ${quoteIdent(t)}`).get() as { n: number }).n;
    }
    db.exec('VACUUM');
    return { tables: tableNames.length, rows };
  } finally {
    db.close();
  }
}

/** Runs a SQL script statement by statement so an error can name the line it starts on. */
function runScript(db: Database.Database, file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  for (const stmt of splitStatements(text)) {
    try {
      db.prepare(stmt.sql).run();
    } catch (err) {
      throw new MinibenchBuildError(file, (err as Error).message, undefined, stmt.line);
    }
  }
}

export interface ScriptStatement {
  sql: string;
  line: number;
}

/**
 * Splits a script on top-level semicolons, skipping quoted text and comments. CREATE TRIGGER bodies
 * (BEGIN ... END;) are kept whole by counting BEGIN/END after a CREATE TRIGGER.
 */
export function splitStatements(text: string): ScriptStatement[] {
  const out: ScriptStatement[] = [];
  let start = 0;
  let line = 1;
  let startLine = 1;
  let i = 0;
  const flush = (end: number): void => {
    const sql = text.slice(start, end);
    if (stripComments(sql).trim() !== '') {
      const leading = sql.match(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/)?.[0] ?? '';
      out.push({ sql: sql.trim(), line: startLine + (leading.match(/\n/g)?.length ?? 0) });
    }
  };
  let triggerDepth = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') line++;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      let j = i + 1;
      while (j < text.length) {
        if (text[j] === close) {
          if (close !== ']' && text[j + 1] === close) {
            j += 2;
            continue;
          }
          break;
        }
        j++;
      }
      line += text.slice(i + 1, j).split('\n').length - 1;
      i = j + 1;
      continue;
    }
    if (c === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i);
      i = nl === -1 ? text.length : nl;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      line += text.slice(i, stop).split('\n').length - 1;
      i = stop;
      continue;
    }
    if (/[A-Za-z_]/.test(c) && (i === 0 || !/[A-Za-z0-9_]/.test(text[i - 1]))) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 32))?.[0] ?? c;
      const upper = word.toUpperCase();
      if (upper === 'TRIGGER' && /CREATE\s+(TEMP\s+|TEMPORARY\s+)?$/i.test(stripComments(text.slice(start, i)).trim() + ' ')) {
        triggerDepth = -1; // inside a trigger header, waiting for BEGIN
      } else if (upper === 'BEGIN' && triggerDepth !== 0) {
        triggerDepth = triggerDepth === -1 ? 1 : triggerDepth + 1;
      } else if (upper === 'CASE' && triggerDepth > 0) {
        triggerDepth++;
      } else if (upper === 'END' && triggerDepth > 0) {
        triggerDepth--;
        if (triggerDepth === 0) triggerDepth = -2; // body closed; the next ';' ends the statement
      }
      i += word.length;
      continue;
    }
    if (c === ';' && triggerDepth <= 0 && triggerDepth !== -1) {
      flush(i + 1);
      start = i + 1;
      startLine = line;
      triggerDepth = 0;
    }
    i++;
  }
  flush(text.length);
  return out;
}

function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function listTables(db: Database.Database): string[] {
  return (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
      .all() as { name: string }[]
  ).map((r) => r.name);
}

// ----------------------------------------------------------------------------------------------- schema model

interface ColumnInfo {
  name: string;
  declaredType: string;
  pkOrder: number;
}

interface ForeignKeyInfo {
  fromColumn: string;
  toTable: string;
  toColumn: string | null;
}

interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  foreignKeys: ForeignKeyInfo[];
}

function readSchema(db: Database.Database, schemaFile: string): TableInfo[] {
  return listTables(db).map((name) => {
    const columns = (
      db.pragma(`table_info(${quoteIdent(name)})`) as { name: string; type: string; pk: number }[]
    ).map((c) => ({ name: c.name, declaredType: c.type, pkOrder: c.pk }));
    const foreignKeys = (
      db.pragma(`foreign_key_list(${quoteIdent(name)})`) as { table: string; from: string; to: string | null }[]
    ).map((f) => ({ fromColumn: f.from, toTable: f.table, toColumn: f.to }));
    if (columns.length === 0) throw new MinibenchBuildError(schemaFile, `table ${name} has no columns`);
    return { name, columns, foreignKeys };
  });
}

/** Maps a declared SQLite column type to the BIRD tables.json type, following SQLite's affinity rules. */
function birdColumnType(declared: string): string {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (t.includes('DATE') || t.includes('TIME')) return 'date';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT') || t === '') return 'text';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB') || t.includes('NUM') || t.includes('DEC')) {
    return 'real';
  }
  return 'text';
}

function humanise(name: string): string {
  return name.replace(/_/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}

function toTablesEntry(
  dbId: string,
  schemaFile: string,
  schema: TableInfo[],
  descriptions: Map<string, Map<string, DescriptionRow>>,
): MinibenchTablesEntry {
  const columnIndex = new Map<string, number>(); // "table\0column" (lower case) -> global index
  const entry: MinibenchTablesEntry = {
    db_id: dbId,
    table_names_original: schema.map((t) => t.name),
    table_names: schema.map((t) => humanise(t.name)),
    column_names_original: [[-1, '*']],
    column_names: [[-1, '*']],
    column_types: ['text'],
    primary_keys: [],
    foreign_keys: [],
  };
  schema.forEach((table, tIdx) => {
    const described = descriptions.get(table.name);
    for (const col of table.columns) {
      columnIndex.set(`${table.name.toLowerCase()}\0${col.name.toLowerCase()}`, entry.column_names_original.length);
      entry.column_names_original.push([tIdx, col.name]);
      const readable = described?.get(col.name)?.column_name || humanise(col.name);
      entry.column_names.push([tIdx, readable]);
      entry.column_types.push(birdColumnType(col.declaredType));
    }
  });
  for (const table of schema) {
    const pk = table.columns
      .filter((c) => c.pkOrder > 0)
      .sort((a, b) => a.pkOrder - b.pkOrder)
      .map((c) => columnIndex.get(`${table.name.toLowerCase()}\0${c.name.toLowerCase()}`) as number);
    if (pk.length === 1) entry.primary_keys.push(pk[0]);
    else if (pk.length > 1) entry.primary_keys.push(pk);
  }
  for (const table of schema) {
    for (const fk of table.foreignKeys) {
      const parent = schema.find((t) => t.name.toLowerCase() === fk.toTable.toLowerCase());
      if (!parent) {
        throw new MinibenchBuildError(schemaFile, `${table.name}.${fk.fromColumn} references unknown table ${fk.toTable}`);
      }
      const toColumn = fk.toColumn ?? parent.columns.find((c) => c.pkOrder === 1)?.name;
      const from = columnIndex.get(`${table.name.toLowerCase()}\0${fk.fromColumn.toLowerCase()}`);
      const to = toColumn === undefined ? undefined : columnIndex.get(`${parent.name.toLowerCase()}\0${toColumn.toLowerCase()}`);
      if (from === undefined || to === undefined) {
        throw new MinibenchBuildError(
          schemaFile,
          `${table.name}.${fk.fromColumn} references unknown column ${fk.toTable}.${fk.toColumn ?? '(primary key)'}`,
        );
      }
      entry.foreign_keys.push([from, to]);
    }
  }
  return entry;
}

// ----------------------------------------------------------------------------------------- descriptions (CSV)

export interface DescriptionRow {
  original_column_name: string;
  column_name: string;
  column_description: string;
  data_format: string;
  value_description: string;
}

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF); returns rows with their 1-based line numbers. */
export function parseCsv(text: string): { line: number; fields: string[] }[] {
  const rows: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let rowLine = 1;
  let inQuotes = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQuotes = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"') {
      inQuotes = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      if (!(fields.length === 1 && fields[0] === '')) rows.push({ line: rowLine, fields });
      fields = [];
      field = '';
      line++;
      rowLine = line;
    } else {
      field += c;
    }
  }
  if (inQuotes) throw new Error(`unterminated quoted field starting on line ${rowLine}`);
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    rows.push({ line: rowLine, fields });
  }
  return rows;
}

/** Validates every table's description CSV against the built schema and copies it to the output. */
function readDescriptions(
  dbSrc: string,
  schema: TableInfo[],
  outDescDir: string,
): Map<string, Map<string, DescriptionRow>> {
  const descDir = path.join(dbSrc, 'database_description');
  const result = new Map<string, Map<string, DescriptionRow>>();
  const present = fs.existsSync(descDir) ? fs.readdirSync(descDir).filter((f) => f.endsWith('.csv')) : [];
  for (const f of present) {
    const table = f.slice(0, -4);
    if (!schema.some((t) => t.name === table)) {
      throw new MinibenchBuildError(path.join(descDir, f), `describes table ${table}, which schema.sql does not create`);
    }
  }
  for (const table of schema) {
    const file = path.join(descDir, `${table.name}.csv`);
    if (!fs.existsSync(file)) throw new MinibenchBuildError(file, `table ${table.name} has no description CSV`);
    const text = fs.readFileSync(file, 'utf8');
    let rows: { line: number; fields: string[] }[];
    try {
      rows = parseCsv(text);
    } catch (err) {
      throw new MinibenchBuildError(file, (err as Error).message);
    }
    const header = rows.shift();
    if (!header || header.fields.join(',') !== DESCRIPTION_HEADER.join(',')) {
      throw new MinibenchBuildError(file, `header must be "${DESCRIPTION_HEADER.join(',')}"`, undefined, 1);
    }
    const byColumn = new Map<string, DescriptionRow>();
    for (const { line, fields } of rows) {
      if (fields.length !== DESCRIPTION_HEADER.length) {
        throw new MinibenchBuildError(file, `expected ${DESCRIPTION_HEADER.length} fields, found ${fields.length}`, undefined, line);
      }
      const [original_column_name, column_name, column_description, data_format, value_description] = fields;
      if (!table.columns.some((c) => c.name === original_column_name)) {
        throw new MinibenchBuildError(file, `column ${original_column_name} is not a column of table ${table.name}`, undefined, line);
      }
      if (byColumn.has(original_column_name)) {
        throw new MinibenchBuildError(file, `column ${original_column_name} is described twice`, undefined, line);
      }
      if (!(DATA_FORMATS as readonly string[]).includes(data_format)) {
        throw new MinibenchBuildError(file, `data_format "${data_format}" must be one of ${DATA_FORMATS.join('/')}`, undefined, line);
      }
      if (column_description.trim() === '') {
        throw new MinibenchBuildError(file, `column ${original_column_name} has an empty column_description`, undefined, line);
      }
      byColumn.set(original_column_name, {
        original_column_name,
        column_name,
        column_description,
        data_format,
        value_description,
      });
    }
    const missing = table.columns.filter((c) => !byColumn.has(c.name)).map((c) => c.name);
    if (missing.length > 0) {
      throw new MinibenchBuildError(file, `columns of ${table.name} not described: ${missing.join(', ')}`);
    }
    fs.copyFileSync(file, path.join(outDescDir, `${table.name}.csv`));
    result.set(table.name, byColumn);
  }
  return result;
}

// ------------------------------------------------------------------------------------------------- questions

const QUESTION_FIELDS = ['question', 'evidence', 'SQL', 'difficulty', 'split'] as const;

/** Collapses line breaks and tabs so each gold query fits on one line of the *_gold.sql files. */
function toOneLine(sql: string): string {
  return sql
    .trim()
    .replace(/;\s*$/, '')
    .replace(/\s*[\r\n\t]+\s*/g, ' ')
    .trim();
}

function readQuestions(file: string): MinibenchSourceQuestion[] {
  if (!fs.existsSync(file)) throw new MinibenchBuildError(file, 'missing file');
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new MinibenchBuildError(file, `invalid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new MinibenchBuildError(file, 'top level must be an array of questions');
  const seen = new Map<string, number>();
  return parsed.map((raw: unknown, index) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new MinibenchBuildError(file, 'must be an object', index);
    }
    const obj = raw as Record<string, unknown>;
    for (const field of QUESTION_FIELDS) {
      if (typeof obj[field] !== 'string') throw new MinibenchBuildError(file, `field "${field}" missing or not a string`, index);
    }
    const extra = Object.keys(obj).filter((k) => !(QUESTION_FIELDS as readonly string[]).includes(k));
    if (extra.length > 0) throw new MinibenchBuildError(file, `unknown field(s): ${extra.join(', ')}`, index);
    const q = obj as Record<(typeof QUESTION_FIELDS)[number], string>;
    if (q.question.trim() === '') throw new MinibenchBuildError(file, 'field "question" is empty', index);
    if (q.SQL.trim() === '') throw new MinibenchBuildError(file, 'field "SQL" is empty', index);
    if (!(MINIBENCH_DIFFICULTIES as readonly string[]).includes(q.difficulty)) {
      throw new MinibenchBuildError(file, `unknown difficulty "${q.difficulty}" (expected ${MINIBENCH_DIFFICULTIES.join('/')})`, index);
    }
    if (!(MINIBENCH_SPLITS as readonly string[]).includes(q.split)) {
      throw new MinibenchBuildError(file, `unknown split "${q.split}" (expected ${MINIBENCH_SPLITS.join('/')})`, index);
    }
    const key = q.question.trim().toLowerCase();
    const previous = seen.get(key);
    if (previous !== undefined) throw new MinibenchBuildError(file, `same question as item ${previous}`, index);
    seen.set(key, index);
    return {
      question: q.question.trim(),
      evidence: q.evidence.trim(),
      SQL: toOneLine(q.SQL),
      difficulty: q.difficulty as MinibenchDifficulty,
      split: q.split as MinibenchSplit,
    };
  });
}

/**
 * Every gold query must run, return rows, and return the same rows whatever order SQLite scans tables in:
 * `PRAGMA reverse_unordered_selects` flips scan order, which exposes ties cut by LIMIT, LIMIT without
 * ORDER BY, and bare columns picked from an arbitrary row of a group.
 */
function checkGoldQueries(db: Database.Database, file: string, questions: MinibenchSourceQuestion[]): void {
  questions.forEach((q, index) => {
    let stmt: Database.Statement;
    let rows: unknown[][];
    try {
      stmt = db.prepare(q.SQL);
      if (!stmt.reader) throw new Error('not a query (returns no data)');
      rows = stmt.raw(true).all() as unknown[][];
    } catch (err) {
      throw new MinibenchBuildError(file, `gold SQL fails: ${(err as Error).message}`, index);
    }
    if (rows.length === 0) throw new MinibenchBuildError(file, 'gold SQL returns no rows', index);
    if (rows.length === 1 && rows[0].every((v) => v === null || v === 0)) {
      throw new MinibenchBuildError(file, 'gold SQL returns a single row of NULL/0 (an aggregate over no rows?)', index);
    }
    const tieBreaks = limitTieBreakVariants(q.SQL, stmt.columns().length);
    if (tieBreaks) {
      const [asc, desc] = tieBreaks.map((sql) => db.prepare(sql).raw(true).all() as unknown[][]);
      if (!sameMultiset(asc, desc)) {
        throw new MinibenchBuildError(
          file,
          'gold SQL is not deterministic: its LIMIT cuts rows that tie on the ORDER BY (or there is no ORDER BY)',
          index,
        );
      }
    }
    db.pragma('reverse_unordered_selects = ON');
    try {
      const reversed = db.prepare(q.SQL).raw(true).all() as unknown[][];
      if (!sameMultiset(rows, reversed)) {
        throw new MinibenchBuildError(
          file,
          'gold SQL result depends on row order (ties cut by LIMIT, LIMIT without ORDER BY, or a bare column in GROUP BY)',
          index,
        );
      }
    } finally {
      db.pragma('reverse_unordered_selects = OFF');
    }
  });
}

/**
 * For a query ending in a top-level LIMIT, returns two copies whose ORDER BY is extended with every output
 * column, ascending in one and descending in the other. Rows tied on the original ORDER BY then come in
 * opposite orders, so the two results differ exactly when the LIMIT cuts through a tie.
 */
export function limitTieBreakVariants(sql: string, columnCount: number): [string, string] | undefined {
  let depth = 0;
  let orderByAt = -1;
  let limitAt = -1;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      const close = sql.indexOf(c, i + 1);
      i = close === -1 ? sql.length : close;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /[A-Za-z]/.test(c) && (i === 0 || !/[A-Za-z0-9_]/.test(sql[i - 1]))) {
      const rest = sql.slice(i, i + 16);
      if (/^ORDER\s+BY\b/i.test(rest)) orderByAt = i;
      else if (/^LIMIT\b/i.test(rest)) limitAt = i;
    }
  }
  if (limitAt === -1) return undefined;
  const positions = Array.from({ length: columnCount }, (_, k) => k + 1);
  const head = sql.slice(0, limitAt).trimEnd();
  const tail = sql.slice(limitAt);
  const withOrder = (dir: string): string => {
    const terms = positions.map((p) => `${p} ${dir}`).join(', ');
    return orderByAt !== -1 && orderByAt < limitAt ? `${head}, ${terms} ${tail}` : `${head} ORDER BY ${terms} ${tail}`;
  };
  return [withOrder('ASC'), withOrder('DESC')];
}

function sameMultiset(a: unknown[][], b: unknown[][]): boolean {
  if (a.length !== b.length) return false;
  const key = (r: unknown[]): string => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  const x = a.map(key).sort();
  const y = b.map(key).sort();
  return x.every((v, i) => v === y[i]);
}

// ------------------------------------------------------------------------------------------------------- CLI

async function main(argv: string[]): Promise<void> {
  const opts: BuildMinibenchOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--force') opts.force = true;
    else if (arg === '--src') opts.srcDir = argv[++i];
    else if (arg === '--out') opts.outDir = argv[++i];
    else throw new Error(`unknown argument ${arg} (usage: build.ts [--force] [--src DIR] [--out DIR])`);
  }
  const started = Date.now();
  const r = await buildMinibench(opts);
  const what = r.rebuilt ? `built in ${Date.now() - started} ms` : 'up to date, nothing to do';
  console.log(
    `minibench ${what}: ${r.counts.databases} databases, ${r.counts.train} train + ${r.counts.dev} dev questions -> ${r.outDir} (source ${r.sourceHash.slice(0, 12)})`,
  );
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
