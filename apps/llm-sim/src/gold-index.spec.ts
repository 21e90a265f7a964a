import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { corruptSql } from './corrupt-sql';
import { GoldIndex } from './gold-index';
import { seededRng } from './rng';
import { BIRD_SAMPLE, SPIDER_SAMPLE } from './testing/sim-fixtures';
import { detectProtocol } from './answer';

describe('GoldIndex on the shared BIRD and Spider samples', () => {
  let index: GoldIndex;
  beforeAll(() => {
    index = new GoldIndex([BIRD_SAMPLE, SPIDER_SAMPLE]);
  });

  it('learns BIRD (SQL, evidence, dev_databases) and Spider (query, train_spider.json, database/)', () => {
    expect(index.size).toBe(48 + 297 + 7000);
    const bird = index.findTarget("Question: What's Angela Sanders's major?");
    expect(bird?.dbId).toBe('student_club');
    expect(bird?.evidence).toMatch(/full name/);
    expect(bird?.dbFile).toMatch(/dev_databases\/student_club\/student_club\.sqlite$/);
    const spider = index.findTarget('Question: How many singers do we have?');
    expect(spider?.sql).toBe('SELECT count(*) FROM singer');
    expect(index.schemaOf(spider!).columns).toContain('Singer_ID');
  });

  it('finds the question occurring last, with or without a Question: label', () => {
    const text = 'Example: How many singers do we have?\nSELECT ...\nNow answer: What is the total number of singers?\nSQL:';
    expect(index.findTarget(text)?.question).toBe('What is the total number of singers?');
    expect(index.findTarget('nothing known here')).toBeUndefined();
  });

  it('makes mistakes that mostly run and mostly return wrong results on the real databases', () => {
    const questions = [
      ...(JSON.parse(readFileSync(join(SPIDER_SAMPLE, 'dev.json'), 'utf8')) as Array<{ question: string }>),
      ...(JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as Array<{ question: string }>),
    ];
    let syntax = 0;
    let failsToRun = 0;
    let sameResult = 0;
    const dbs = new Map<string, Database.Database>();
    for (const { question } of questions) {
      const item = index.findTarget(`Question: ${question}`)!;
      const mistake = corruptSql(item.sql, seededRng('realism', question), index.columnsNear(item));
      if (mistake.kind === 'syntax_error') {
        syntax++;
        continue;
      }
      let db = dbs.get(item.dbFile!);
      if (!db) dbs.set(item.dbFile!, (db = new Database(item.dbFile!, { readonly: true })));
      const rows = (sql: string) => JSON.stringify(db!.prepare(sql).raw().all().map(String).sort());
      try {
        if (rows(mistake.sql) === rows(item.sql)) sameResult++;
      } catch {
        failsToRun++;
      }
    }
    for (const db of dbs.values()) db.close();
    const n = questions.length;
    expect(syntax / n).toBeLessThan(0.2);
    expect(failsToRun / (n - syntax)).toBeLessThan(0.3);
    expect(sameResult / n).toBeLessThan(0.1);
  });

  it('reports a clear error for a folder that is not a dataset', () => {
    expect(() => new GoldIndex([__dirname])).toThrow(/no dev.json .* found \(expected a BIRD or Spider layout\)/);
  });
});

describe('detectProtocol', () => {
  it('reads the stage protocol from the instructions', () => {
    expect(detectProtocol('Write the SQL skeleton with _ for values')).toBe('skeleton');
    expect(detectProtocol('Decompose the question into sub-questions')).toBe('sub_questions');
    expect(detectProtocol('List the relevant tables as a JSON array')).toBe('tables');
    expect(detectProtocol('Explain what this query does')).toBe('explanation');
    expect(detectProtocol('Answer with one SQLite query in a ```sql block')).toBe('sql');
    expect(detectProtocol('Using only the relevant tables, write one SQLite query in a ```sql block')).toBe('sql');
    expect(detectProtocol('Explain your reasoning, then give the SQL query')).toBe('sql');
  });
});
