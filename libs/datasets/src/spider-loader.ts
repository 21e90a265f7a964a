import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildDatabaseCatalog, checkItemsAgainstDatabases } from './database-catalog';
import { DatasetError } from './errors';
import { asArray, isRecord, readJsonFile } from './json-file';
import { spiderHardness } from './spider-hardness';
import { parseSpiderSql } from './spider-sql-parser';
import { parseTablesJson } from './tables-json';
import type { Dataset, DatasetItem, DatasetProblem } from './types';
import { readUtf8File } from './utf8-file';

const SPLIT_FILES: Array<{ file: string; split: 'train' | 'dev'; required: boolean }> = [
  { file: 'dev.json', split: 'dev', required: true },
  { file: 'train_spider.json', split: 'train', required: false },
  { file: 'train_others.json', split: 'train', required: false },
];

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

export async function loadSpider(root: string, sampleValues: number): Promise<Dataset> {
  const problems: DatasetProblem[] = [];
  const tablesFile = join(root, 'tables.json');
  if (!existsSync(tablesFile)) throw new DatasetError(tablesFile, 'file is missing: a Spider folder needs tables.json, the schema of every database');
  const schemas = new Map(parseTablesJson(await readJsonFile(tablesFile), tablesFile).map((e) => [e.dbId, e]));
  const items: DatasetItem[] = [];
  const fileOf = new Map<string, string>();
  let trainIndex = 0;
  for (const { file, split, required } of SPLIT_FILES) {
    const path = join(root, file);
    if (!existsSync(path)) {
      if (required) throw new DatasetError(path, 'file is missing');
      continue;
    }
    const raw = asArray(await readJsonFile(path), path, 'the question list');
    const gold = split === 'dev' ? await readGoldLines(join(root, 'dev_gold.sql')) : undefined;
    if (gold && gold.length !== raw.length) {
      problems.push({ file: 'dev_gold.sql', message: `${gold.length} gold lines for ${raw.length} questions in ${file}; using ${file}'s queries` });
    }
    raw.forEach((entry, i) => {
      const id = `${split}-${split === 'train' ? trainIndex++ : i}`;
      if (!isRecord(entry) || typeof entry.db_id !== 'string' || typeof entry.question !== 'string' || typeof entry.query !== 'string') {
        problems.push({ file, item: id, message: 'needs string db_id, question and query; item skipped' });
        return;
      }
      const goldLine = gold && gold.length === raw.length ? gold[i] : undefined;
      if (goldLine && goldLine.dbId !== entry.db_id) {
        problems.push({ file: 'dev_gold.sql', item: id, message: `db_id ${goldLine.dbId} differs from ${file}'s ${entry.db_id}` });
      }
      const item: DatasetItem = { id, split, dbId: entry.db_id, question: entry.question, goldSql: goldLine?.sql ?? entry.query };
      // Graded from the gold text like the official evaluator; the shipped parse is the fallback.
      try {
        item.hardness = spiderHardness(parseSpiderSql(item.goldSql));
      } catch (err) {
        if (entry.sql !== undefined) item.hardness = spiderHardness(entry.sql);
        else problems.push({ file, item: id, message: `cannot grade hardness: ${(err as Error).message}` });
      }
      items.push(item);
      fileOf.set(id, file);
    });
  }
  const databases = await buildDatabaseCatalog({ root, databaseDirs: ['database'], schemas, sampleValues, problems });
  checkItemsAgainstDatabases(items, databases, (item) => fileOf.get(item.id) ?? '', problems);
  return { format: 'spider', root, databases, items, problems };
}
