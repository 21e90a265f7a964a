import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildDatabaseCatalog, checkItemsAgainstDatabases } from './database-catalog';
import { DatasetError } from './errors';
import { asArray, isRecord, readJsonFile } from './json-file';
import { spiderHardness } from './spider-hardness';
import { parseSpiderSql } from './spider-sql-parser';
import { parseTablesJson, type TablesJsonEntry } from './tables-json';
import type { Dataset, DatasetItem, DatasetProblem } from './types';
import { readUtf8File } from './utf8-file';

/** Spider's training questions, read in this order when present. */
export const SPIDER_TRAIN_FILES = ['train_spider.json', 'train_others.json'];

/** Reads `<split>_gold.sql` (`SQL<TAB>db_id` a line) when present: it is what the official evaluator scores against. */
async function readGoldLines(file: string): Promise<Array<{ sql: string; dbId: string }> | undefined> {
  if (!existsSync(file)) return undefined;
  const lines = (await readUtf8File(file)).split(/\r?\n/).filter((l) => l.trim().length > 0);
  return lines.map((line, i) => {
    const tab = line.trim().lastIndexOf('\t');
    if (tab < 0) throw new DatasetError(file, `line ${i + 1} is not "SQL<TAB>db_id"`);
    return { sql: line.trim().slice(0, tab).trim(), dbId: line.trim().slice(tab + 1).trim() };
  });
}

/** Grades an item's hardness from its gold text like the official evaluator; the shipped parse (`sql`) is the fallback. */
export function gradeSpiderHardness(item: DatasetItem, shippedSql: unknown, file: string, problems: DatasetProblem[]): void {
  try {
    item.hardness = spiderHardness(parseSpiderSql(item.goldSql));
  } catch (err) {
    if (shippedSql !== undefined) item.hardness = spiderHardness(shippedSql);
    else problems.push({ file, item: item.id, message: `cannot grade hardness: ${(err as Error).message}` });
  }
}

/** Spider's training questions (train_spider.json, train_others.json, when present), numbered train-0, train-1, ... */
export async function readSpiderTrainItems(root: string, problems: DatasetProblem[], fileOf: Map<string, string>): Promise<DatasetItem[]> {
  const items: DatasetItem[] = [];
  let index = 0;
  for (const file of SPIDER_TRAIN_FILES) {
    const path = join(root, file);
    if (!existsSync(path)) continue;
    for (const entry of asArray(await readJsonFile(path), path, 'the question list')) {
      const item = spiderItem(entry, `train-${index++}`, 'train', file, problems);
      if (!item) continue;
      items.push(item);
      fileOf.set(item.id, file);
    }
  }
  return items;
}

/** How a Spider-format entry is read: the field with its question, and the problem message for an entry that is no item. */
export interface SpiderEntryShape {
  questionField: string;
  rejection: (entry: unknown) => string;
}

const SPIDER_SHAPE: SpiderEntryShape = { questionField: 'question', rejection: () => 'needs string db_id, question and query; item skipped' };

/** The item `entry` is, or undefined (with a problem) when it lacks a string db_id, question or query. */
export function spiderItem(
  entry: unknown, id: string, split: 'train' | 'dev', file: string, problems: DatasetProblem[],
  gold?: { sql: string; dbId: string }, shape: SpiderEntryShape = SPIDER_SHAPE,
): DatasetItem | undefined {
  if (!isRecord(entry) || [entry.db_id, entry[shape.questionField], entry.query].some((v) => typeof v !== 'string')) {
    problems.push({ file, item: id, message: shape.rejection(entry) });
    return undefined;
  }
  if (gold && gold.dbId !== entry.db_id) {
    problems.push({ file: 'dev_gold.sql', item: id, message: `db_id ${gold.dbId} differs from ${file}'s ${entry.db_id}` });
  }
  const item: DatasetItem = { id, split, dbId: entry.db_id as string, question: entry[shape.questionField] as string, goldSql: gold?.sql ?? (entry.query as string) };
  gradeSpiderHardness(item, entry.sql, file, problems);
  return item;
}

export async function loadSpider(root: string, sampleValues: number): Promise<Dataset> {
  const problems: DatasetProblem[] = [];
  const schemas = await readSpiderSchemas(join(root, 'tables.json'), 'a Spider folder needs tables.json, the schema of every database');
  const devFile = join(root, 'dev.json');
  if (!existsSync(devFile)) throw new DatasetError(devFile, 'file is missing');
  const raw = asArray(await readJsonFile(devFile), devFile, 'the question list');
  const gold = await readGoldLines(join(root, 'dev_gold.sql'));
  if (gold && gold.length !== raw.length) {
    problems.push({ file: 'dev_gold.sql', message: `${gold.length} gold lines for ${raw.length} questions in dev.json; using dev.json's queries` });
  }
  const aligned = gold && gold.length === raw.length ? gold : undefined;
  const fileOf = new Map<string, string>();
  const items: DatasetItem[] = [];
  raw.forEach((entry, i) => {
    const item = spiderItem(entry, `dev-${i}`, 'dev', 'dev.json', problems, aligned?.[i]);
    if (!item) return;
    items.push(item);
    fileOf.set(item.id, 'dev.json');
  });
  items.push(...(await readSpiderTrainItems(root, problems, fileOf)));
  const databases = await buildDatabaseCatalog({ root, databaseDirs: ['database'], schemas, sampleValues, problems });
  checkItemsAgainstDatabases(items, databases, (item) => fileOf.get(item.id) ?? '', problems);
  return { format: 'spider', root, databases, items, problems };
}

/** tables.json by db_id; `why` says what the folder needs it for when it is missing. */
export async function readSpiderSchemas(tablesFile: string, why: string): Promise<Map<string, TablesJsonEntry>> {
  if (!existsSync(tablesFile)) throw new DatasetError(tablesFile, `file is missing: ${why}`);
  return new Map(parseTablesJson(await readJsonFile(tablesFile), tablesFile).map((e) => [e.dbId, e]));
}
