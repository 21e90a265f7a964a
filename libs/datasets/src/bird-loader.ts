import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildDatabaseCatalog, checkItemsAgainstDatabases } from './database-catalog';
import { DatasetError } from './errors';
import { asArray, isRecord, readJsonFile } from './json-file';
import { parseTablesJson, type TablesJsonEntry } from './tables-json';
import type { BirdDifficulty, Dataset, DatasetItem, DatasetProblem } from './types';

const DIFFICULTIES = new Set<string>(['simple', 'moderate', 'challenging']);

interface SplitLayout {
  split: 'train' | 'dev';
  questions: string;
  tables: string;
  required: boolean;
}

const BIRD_LAYOUT: SplitLayout[] = [
  { split: 'dev', questions: 'dev.json', tables: 'dev_tables.json', required: true },
  { split: 'train', questions: 'train.json', tables: 'train_tables.json', required: false },
];

/** Reads the schema files that exist; a database without an entry has its schema read from SQLite (and flagged). */
async function readSchemas(root: string, layout: SplitLayout[]): Promise<Map<string, TablesJsonEntry>> {
  const schemas = new Map<string, TablesJsonEntry>();
  for (const { tables } of layout) {
    const file = join(root, tables);
    if (!existsSync(file)) continue;
    for (const entry of parseTablesJson(await readJsonFile(file), file)) schemas.set(entry.dbId, entry);
  }
  return schemas;
}

function toItem(entry: unknown, split: 'train' | 'dev', index: number, file: string, problems: DatasetProblem[]): DatasetItem | undefined {
  const fallbackId = `${split}-${index}`;
  if (!isRecord(entry)) {
    problems.push({ file, item: fallbackId, message: 'not a JSON object; item skipped' });
    return undefined;
  }
  const id = typeof entry.question_id === 'number' ? `${split}-${entry.question_id}` : fallbackId;
  const sql = typeof entry.SQL === 'string' ? entry.SQL : entry.query;
  if (typeof entry.db_id !== 'string' || typeof entry.question !== 'string' || typeof sql !== 'string') {
    problems.push({ file, item: id, message: 'needs string db_id, question and SQL; item skipped' });
    return undefined;
  }
  const item: DatasetItem = { id, split, dbId: entry.db_id, question: entry.question, goldSql: sql };
  if (typeof entry.evidence === 'string' && entry.evidence.length > 0) item.evidence = entry.evidence;
  if (typeof entry.difficulty === 'string') {
    if (DIFFICULTIES.has(entry.difficulty)) item.difficulty = entry.difficulty as BirdDifficulty;
    else problems.push({ file, item: id, message: `unknown difficulty "${entry.difficulty}"` });
  }
  return item;
}

/** BIRD (dev_databases/ and train_databases/) and minibench (both splits' databases in dev_databases/). */
export async function loadBird(root: string, format: 'bird' | 'minibench', sampleValues: number): Promise<Dataset> {
  const problems: DatasetProblem[] = [];
  const layout =
    format === 'bird'
      ? BIRD_LAYOUT
      : BIRD_LAYOUT.map((l) => ({ ...l, tables: 'dev_tables.json', required: true }));
  const schemas = await readSchemas(root, layout);
  const items: DatasetItem[] = [];
  const fileOf = new Map<string, string>();
  const seen = new Set<string>();
  for (const { split, questions, required } of layout) {
    const file = join(root, questions);
    if (!existsSync(file)) {
      if (required) throw new DatasetError(file, 'file is missing');
      continue;
    }
    asArray(await readJsonFile(file), file, 'the question list').forEach((entry, i) => {
      const item = toItem(entry, split, i, questions, problems);
      if (!item) return;
      if (seen.has(item.id)) {
        problems.push({ file: questions, item: item.id, message: 'duplicate question_id; item skipped' });
        return;
      }
      seen.add(item.id);
      items.push(item);
      fileOf.set(item.id, questions);
    });
  }
  const databaseDirs = format === 'bird' ? ['dev_databases', 'train_databases'] : ['dev_databases'];
  const databases = await buildDatabaseCatalog({ root, databaseDirs, schemas, sampleValues, problems });
  checkItemsAgainstDatabases(items, databases, (item) => fileOf.get(item.id) ?? '', problems);
  return { format, root, databases, items, problems };
}
