import { GoldIndex } from './gold-index';
import { BIRD_SAMPLE, SPIDER_SAMPLE, datasetsPresent } from './testing/sim-fixtures';
import { detectProtocol } from './answer';

const describeIf = datasetsPresent ? describe : describe.skip;

describeIf('GoldIndex on the shared BIRD and Spider samples', () => {
  const index = new GoldIndex([BIRD_SAMPLE, SPIDER_SAMPLE]);

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
