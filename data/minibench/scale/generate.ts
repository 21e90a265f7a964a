/**
 * The scale dataset: a large synthetic text-to-SQL benchmark over the minibench databases, in Spider layout
 * (tables.json, dev.json, train_spider.json, dev_gold.sql, train_gold.sql, database/<db>/<db>.sqlite), so that
 * `sqlsweep datasets add NAME --format spider --path DIR` registers it and the LLM simulator
 * (`--dataset DIR`) knows every question and its gold SQL.
 *
 * Deterministic from the seed: the same seed, sizes and minibench give byte-identical files. Every gold SQL is run
 * on its database while generating and kept only when it returns between 1 and MAX_ROWS rows that are not a single
 * row of NULL or 0; every question is unique across both splits (normalised as the simulator normalises it).
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { mulberry32 } from '@sqlsweep/contracts';
import { buildMinibench } from '../build';
import { readDatabaseFacts, type DatabaseFacts, type TablesJsonEntryRaw } from './schema-facts';
import { drawTemplate, pick, type Rng } from './templates';

export interface ScaleDatasetOptions {
  /** Output folder, replaced atomically. */
  outDir: string;
  dev: number;
  train: number;
  seed?: number;
  /** Built minibench (BIRD layout); default: data/minibench/dist, built first when stale. */
  minibenchDir?: string;
  /** Regenerate even when outDir's manifest says it holds this seed and these sizes already. */
  force?: boolean;
}

export interface ScaleDatasetResult {
  outDir: string;
  generated: boolean;
  counts: { dev: number; train: number; databases: number };
  /** Candidates drawn whose gold was rejected (no rows, too many rows, a lone NULL/0, a duplicate question). */
  rejected: number;
  /** Items per template, both splits. */
  templates: Record<string, number>;
  elapsedMs: number;
}

export interface ScaleItem {
  db_id: string;
  question: string;
  query: string;
}

/** Bumped when the output for a given seed and sizes changes. */
const GENERATOR_VERSION = 1;
const MAX_ROWS = 500;
const MAX_ATTEMPTS_PER_ITEM = 200;

export class ScaleDatasetError extends Error {}

function normalizeQuestion(q: string): string {
  return q.trim().replace(/\s+/g, ' ').toLowerCase();
}

function seededRng(seed: number, stream: string): Rng {
  return mulberry32(createHash('sha256').update(`${seed}\u0000${stream}`).digest().readUInt32LE(0));
}

interface Manifest {
  generatorVersion: number;
  seed: number;
  dev: number;
  train: number;
  minibenchHash: string;
  templates: Record<string, number>;
}

function readManifest(outDir: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(outDir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** Accepts a gold result: 1..MAX_ROWS rows, not one row of NULL/0 only. */
function acceptable(rows: unknown[][]): boolean {
  if (rows.length === 0 || rows.length > MAX_ROWS) return false;
  if (rows.length === 1 && rows[0]!.every((v) => v === null || v === 0)) return false;
  return true;
}

export async function generateScaleDataset(opts: ScaleDatasetOptions): Promise<ScaleDatasetResult> {
  const started = Date.now();
  const seed = opts.seed ?? 0;
  for (const [name, n] of [['dev', opts.dev], ['train', opts.train]] as const) {
    if (!Number.isInteger(n) || n < 0) throw new ScaleDatasetError(`--${name}: expected a whole number >= 0, got ${n}`);
  }
  const minibench = opts.minibenchDir ? { outDir: path.resolve(opts.minibenchDir), sourceHash: 'given' } : await buildMinibench();
  const srcDir = minibench.outDir;
  const tablesFile = path.join(srcDir, 'dev_tables.json');
  if (!fs.existsSync(tablesFile)) throw new ScaleDatasetError(`${tablesFile}: file is missing (expected a built minibench)`);
  const minibenchHash = createHash('sha256').update(fs.readFileSync(tablesFile)).update(minibench.sourceHash).digest('hex');
  const outDir = path.resolve(opts.outDir);

  const current = readManifest(outDir);
  if (!opts.force && current && current.generatorVersion === GENERATOR_VERSION && current.seed === seed && current.dev === opts.dev
    && current.train === opts.train && current.minibenchHash === minibenchHash) {
    return { outDir, generated: false, counts: { dev: opts.dev, train: opts.train, databases: countDatabases(outDir) }, rejected: 0, templates: current.templates, elapsedMs: Date.now() - started };
  }

  const entries = JSON.parse(fs.readFileSync(tablesFile, 'utf8')) as TablesJsonEntryRaw[];
  const dbFile = (dbId: string) => path.join(srcDir, 'dev_databases', dbId, `${dbId}.sqlite`);
  const handles = new Map<string, Database.Database>();
  const facts: DatabaseFacts[] = [];
  try {
    for (const entry of [...entries].sort((a, b) => a.db_id.localeCompare(b.db_id))) {
      const file = dbFile(entry.db_id);
      if (!fs.existsSync(file)) throw new ScaleDatasetError(`${file}: database file is missing`);
      const db = new Database(file, { readonly: true, fileMustExist: true });
      handles.set(entry.db_id, db);
      facts.push(readDatabaseFacts(entry, db));
    }
    const seen = new Set<string>();
    const templates: Record<string, number> = {};
    let rejected = 0;
    const draw = (rng: Rng, count: number, split: string): ScaleItem[] => {
      const items: ScaleItem[] = [];
      while (items.length < count) {
        let attempts = 0;
        for (;;) {
          if (++attempts > MAX_ATTEMPTS_PER_ITEM) {
            throw new ScaleDatasetError(`${split} item ${items.length}: no new question with a gold SQL returning rows in ${MAX_ATTEMPTS_PER_ITEM} draws (the templates' question space is used up)`);
          }
          const db = pick(rng, facts)!;
          const drawn = drawTemplate(rng)(rng, db);
          if (!drawn) continue;
          const key = normalizeQuestion(drawn.question);
          if (seen.has(key)) {
            rejected++;
            continue;
          }
          let rows: unknown[][];
          try {
            rows = handles.get(db.dbId)!.prepare(drawn.sql).raw(true).all() as unknown[][];
          } catch (err) {
            throw new ScaleDatasetError(`template ${drawn.template} made a failing SQL on ${db.dbId}: ${drawn.sql}: ${(err as Error).message}`);
          }
          if (!acceptable(rows)) {
            rejected++;
            continue;
          }
          seen.add(key);
          templates[drawn.template] = (templates[drawn.template] ?? 0) + 1;
          items.push({ db_id: db.dbId, question: drawn.question, query: drawn.sql });
          break;
        }
      }
      return items;
    };
    const dev = draw(seededRng(seed, 'dev'), opts.dev, 'dev');
    const train = draw(seededRng(seed, 'train'), opts.train, 'train');
    writeOutput(outDir, { entries, dev, train, dbFile, manifest: { generatorVersion: GENERATOR_VERSION, seed, dev: opts.dev, train: opts.train, minibenchHash, templates } });
    return { outDir, generated: true, counts: { dev: dev.length, train: train.length, databases: facts.length }, rejected, templates, elapsedMs: Date.now() - started };
  } finally {
    for (const db of handles.values()) db.close();
  }
}

function countDatabases(outDir: string): number {
  return fs.readdirSync(path.join(outDir, 'database')).length;
}

function goldLines(items: ScaleItem[]): string {
  return items.map((i) => `${i.query}\t${i.db_id}\n`).join('');
}

function writeOutput(outDir: string, o: { entries: TablesJsonEntryRaw[]; dev: ScaleItem[]; train: ScaleItem[]; dbFile: (dbId: string) => string; manifest: Manifest }): void {
  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  const tmp = `${outDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(tmp);
  try {
    fs.writeFileSync(path.join(tmp, 'tables.json'), `${JSON.stringify(o.entries, null, 1)}\n`);
    fs.writeFileSync(path.join(tmp, 'dev.json'), `${JSON.stringify(o.dev, null, 1)}\n`);
    fs.writeFileSync(path.join(tmp, 'train_spider.json'), `${JSON.stringify(o.train, null, 1)}\n`);
    fs.writeFileSync(path.join(tmp, 'dev_gold.sql'), goldLines(o.dev));
    fs.writeFileSync(path.join(tmp, 'train_gold.sql'), goldLines(o.train));
    for (const e of o.entries) {
      fs.mkdirSync(path.join(tmp, 'database', e.db_id), { recursive: true });
      fs.copyFileSync(o.dbFile(e.db_id), path.join(tmp, 'database', e.db_id, `${e.db_id}.sqlite`));
    }
    fs.writeFileSync(path.join(tmp, 'manifest.json'), `${JSON.stringify(o.manifest, null, 1)}\n`);
    const old = `${outDir}.old-${process.pid}-${randomBytes(4).toString('hex')}`;
    const hadOld = fs.existsSync(outDir);
    if (hadOld) fs.renameSync(outDir, old);
    fs.renameSync(tmp, outDir);
    if (hadOld) fs.rmSync(old, { recursive: true, force: true });
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
