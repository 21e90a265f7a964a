import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { readDescriptions } from './descriptions';
import { checkGoldQueries } from './gold-check';
import { readQuestions } from './questions';
import { createDatabase } from './sqlite-file';
import { readSchema, toTablesEntry } from './tables-entry';
import { MINIBENCH_SPLITS, type MinibenchCounts, type MinibenchItem, type MinibenchManifest, type MinibenchSplit, type MinibenchTablesEntry } from './types';

/** Builds every database and writes the BIRD-layout files of the benchmark into outDir. */
export function buildInto(srcDir: string, outDir: string, dbIds: string[], sourceHash: string): MinibenchCounts {
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
