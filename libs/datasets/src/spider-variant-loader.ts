import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildDatabaseCatalog, checkItemsAgainstDatabases } from './database-catalog';
import { DatasetError } from './errors';
import { listFilesUnder } from './hash-files';
import { isRecord, readJsonArrayWithLines } from './json-file';
import { readSpiderSchemas, readSpiderTrainItems, SPIDER_TRAIN_FILES, spiderItem } from './spider-loader';
import type { Dataset, DatasetItem, DatasetProblem, DatasetSourceFile, SpiderVariantFormat } from './types';

interface VariantLayout {
  title: string;
  /** Where the variant's questions are, first found wins (the names its releases use). */
  questionFiles: string[];
  /** The field holding the question that is evaluated. */
  questionField: string;
  /** Spider-DK: its own tables.json (a superset of Spider's) and database/ (its new databases) over Spider's. */
  ownDatabases: boolean;
}

const LAYOUTS: Record<SpiderVariantFormat, VariantLayout> = {
  'spider-syn': { title: 'Spider-Syn', questionFiles: ['dev.json'], questionField: 'SpiderSynQuestion', ownDatabases: false },
  'spider-realistic': { title: 'Spider-Realistic', questionFiles: ['dev.json', 'spider-realistic.json'], questionField: 'question', ownDatabases: false },
  'spider-dk': { title: 'Spider-DK', questionFiles: ['Spider-DK.json', 'dev.json'], questionField: 'question', ownDatabases: true },
};

/** Why an entry is not an item of this variant (spiderItem found it is not). */
function whatIsWrong(entry: unknown, layout: VariantLayout): string {
  if (!isRecord(entry)) return 'is not a JSON object';
  const missing = ['db_id', layout.questionField, 'query'].filter((field) => typeof entry[field] !== 'string');
  return `needs a string ${missing.map((f) => (f === layout.questionField ? `${f} (${layout.title}'s question)` : f)).join(', ')}`;
}

async function readVariantQuestions(
  file: string,
  name: string,
  layout: VariantLayout,
  problems: DatasetProblem[],
): Promise<DatasetItem[]> {
  const { entries, lines } = await readJsonArrayWithLines(file, 'the question list');
  if (entries.length === 0) throw new DatasetError(file, 'holds no questions');
  const items: DatasetItem[] = [];
  const rejected: string[] = [];
  entries.forEach((entry, i) => {
    const id = `dev-${i}`;
    const rejection = (wrong: unknown): string => {
      const message = `line ${lines[i]}: ${whatIsWrong(wrong, layout)}; item skipped`;
      rejected.push(`item ${id} (${message})`);
      return message;
    };
    const item = spiderItem(entry, id, 'dev', name, problems, undefined, { questionField: layout.questionField, rejection });
    if (item) items.push(item);
  });
  if (items.length === 0) {
    throw new DatasetError(file, `no entry is a ${layout.title} item (db_id, ${layout.questionField}, query); first: ${rejected[0]}`);
  }
  return items;
}

function requireFolder(dir: string, what: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new DatasetError(dir, `folder is missing: ${what}`);
}

/**
 * Spider-Syn, Spider-Realistic and Spider-DK: the variant folder's questions (dev split) over the Spider folder's
 * databases, tables.json and training questions (train split, which few-shot methods draw from, as in the papers).
 * Spider-DK's own tables.json replaces Spider's and its database/ adds to Spider's. `spiderRoot` defaults to the
 * variant folder itself (one folder holding both). The version is made of exactly these files, laid out as a
 * Spider folder would be, so it does not depend on where either folder is.
 */
export async function loadSpiderVariant(
  root: string,
  format: SpiderVariantFormat,
  spiderRoot: string | undefined,
  sampleValues: number,
): Promise<Dataset> {
  const layout = LAYOUTS[format];
  const spider = spiderRoot ?? root;
  const pointAtSpider = spiderRoot === undefined
    ? `${layout.title} runs on Spider's databases: give the Spider folder with --spider <dir>, or put them in this folder`
    : `the --spider folder must be a Spider release (tables.json, database/<db_id>/<db_id>.sqlite)`;
  if (spiderRoot !== undefined) requireFolder(spiderRoot, 'the --spider folder does not exist');
  const problems: DatasetProblem[] = [];
  const files: DatasetSourceFile[] = [];

  const questionsName = layout.questionFiles.find((f) => existsSync(join(root, f)));
  if (!questionsName) {
    throw new DatasetError(join(root, layout.questionFiles[0]), `file is missing: a ${layout.title} folder holds its questions in ${layout.questionFiles.join(' or ')}`);
  }
  const items = await readVariantQuestions(join(root, questionsName), questionsName, layout, problems);
  files.push({ path: questionsName, absPath: join(root, questionsName) });

  const ownTables = layout.ownDatabases && existsSync(join(root, 'tables.json'));
  const tablesFile = join(ownTables ? root : spider, 'tables.json');
  const schemas = await readSpiderSchemas(tablesFile, `the schema of every database; ${pointAtSpider}`);
  files.push({ path: 'tables.json', absPath: tablesFile });

  const fileOf = new Map(items.map((i) => [i.id, questionsName]));
  items.push(...(await readSpiderTrainItems(spider, problems, fileOf)));
  for (const name of SPIDER_TRAIN_FILES) if (existsSync(join(spider, name))) files.push({ path: name, absPath: join(spider, name) });

  requireFolder(join(spider, 'database'), `the databases (<db_id>/<db_id>.sqlite); ${pointAtSpider}`);
  const databases = [];
  const roots = layout.ownDatabases && spider !== root && existsSync(join(root, 'database')) ? [root, spider] : [spider];
  const seenPaths = new Set<string>();
  for (const dir of roots) {
    const found = await buildDatabaseCatalog({
      root: dir, databaseDirs: ['database'], schemas, sampleValues, problems, skip: new Set(databases.map((d) => d.dbId)),
    });
    databases.push(...found);
    for (const f of await listFilesUnder(join(dir, 'database'), dir)) {
      if (seenPaths.has(f.path)) continue; // the variant's file of that name replaces Spider's
      seenPaths.add(f.path);
      files.push(f);
    }
  }
  databases.sort((a, b) => (a.dbId < b.dbId ? -1 : a.dbId > b.dbId ? 1 : 0));
  checkItemsAgainstDatabases(items, databases, (item) => fileOf.get(item.id) ?? '', problems);
  return { format: 'spider', sourceFormat: format, root, databases, items, problems, files };
}
