import { loadDataset, renderSchemaDdl, type DatabaseSchema, type Dataset, type DatasetItem } from '@sqlsweep/datasets';
import { loadTemplate, renderTemplate } from '@sqlsweep/pipelines/src/template';
import { GoldIndex, type GoldItem } from './gold-index';
import { promptFeatures, shownSchema } from './prompt-features';
import { BIRD_SAMPLE, SPIDER_SAMPLE } from './testing/sim-fixtures';

/** Real prompts as our stages render them (templates of libs/pipelines over the Spider and BIRD samples' schemas). */
const zeroShot = loadTemplate('zero-shot.generate');
const fewShot = loadTemplate('baselines.few-shot');
const correct = loadTemplate('rb-sql.correct');
const revise = loadTemplate('dr-chain.revise');

const text = (messages: Array<{ content: string }>): string => messages.map((m) => m.content).join('\n');
const evidenceLine = (item: DatasetItem): string => (item.evidence ? `Evidence: ${item.evidence}\n` : '');

function only(schema: DatabaseSchema, tables: string[]): DatabaseSchema {
  return { ...schema, tables: schema.tables.filter((t) => tables.includes(t.name.toLowerCase())) };
}

describe('promptFeatures on prompts our stages render', () => {
  let spider: Dataset;
  let bird: Dataset;
  let index: GoldIndex;
  const schemaOf = (ds: Dataset, item: DatasetItem): DatabaseSchema => ds.databases.find((d) => d.dbId === item.dbId)!;
  const itemOf = (ds: Dataset, id: string): DatasetItem => ds.items.find((i) => i.id === id)!;
  const goldOf = (item: DatasetItem): GoldItem => index.findTarget(`Question: ${item.question}\n${item.evidence ?? ''}`)!;

  beforeAll(async () => {
    spider = await loadDataset({ format: 'spider', path: SPIDER_SAMPLE, sampleValues: 0 });
    bird = await loadDataset({ format: 'bird', path: BIRD_SAMPLE, sampleValues: 0 });
    index = new GoldIndex([BIRD_SAMPLE, SPIDER_SAMPLE]);
  });

  // dev-22: SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON ... GROUP BY T1.stadium_id
  const zeroShotPrompt = (schema: DatabaseSchema, item: DatasetItem): string =>
    text(renderTemplate(zeroShot, { schema: renderSchemaDdl(schema), evidence_line: evidenceLine(item), question: item.question }));

  it('reads the DDL schema, the gold tables and columns through aliases, and the Spider hardness', () => {
    const item = itemOf(spider, 'dev-22');
    const schema = schemaOf(spider, item);
    const prompt = zeroShotPrompt(schema, item);
    expect([...shownSchema(prompt).keys()].sort()).toEqual(schema.tables.map((t) => t.name.toLowerCase()).sort());
    const f = promptFeatures(prompt, goldOf(item), index);
    const columns = schema.tables.reduce((n, t) => n + t.columns.length, 0);
    // Gold: concert, stadium; concert.stadium_id, stadium.name, stadium.stadium_id.
    expect(f).toEqual({
      schemaRecall: 1, goldReachable: true, noiseTables: schema.tables.length - 2, noiseColumns: columns - 3, examples: 0, skeletonMatch: false,
      decomposition: false, evidence: false, values: false, feedbackError: false, feedbackEmpty: false, feedbackExplanation: false, hardness: 'medium',
    });
  });

  it('a missing gold table makes the gold unreachable and lowers the recall; fewer other tables is less noise', () => {
    const item = itemOf(spider, 'dev-22');
    const schema = schemaOf(spider, item);
    const without = promptFeatures(zeroShotPrompt(only(schema, ['concert', 'singer']), item), goldOf(item), index);
    expect(without.goldReachable).toBe(false);
    expect(without.schemaRecall).toBeCloseTo(2 / 5);
    const goldOnly = promptFeatures(zeroShotPrompt(only(schema, ['concert', 'stadium']), item), goldOf(item), index);
    expect(goldOnly).toMatchObject({ goldReachable: true, schemaRecall: 1, noiseTables: 0 });
  });

  it('counts few-shot examples and sees one whose skeleton matches the gold', () => {
    const item = itemOf(spider, 'dev-22');
    const shot = (q: DatasetItem): string => `Question: ${q.question}\n\`\`\`sql\n${q.goldSql}\n\`\`\``;
    const render = (shots: DatasetItem[]): string => text(renderTemplate(fewShot, {
      examples: `### Examples\n${shots.map(shot).join('\n\n')}\n\n`, schema: renderSchemaDdl(schemaOf(spider, item)), evidence_line: '', question: item.question,
    }));
    const unrelated = spider.items.filter((i) => i.dbId !== item.dbId && !/JOIN|GROUP/i.test(i.goldSql)).slice(0, 2);
    const plain = promptFeatures(render(unrelated), goldOf(item), index);
    expect(plain).toMatchObject({ examples: 2, skeletonMatch: false });
    // dev-35 (another database's question) has dev-22's skeleton: SELECT T2.name, count(*) FROM a AS T1 JOIN b AS T2 ON ... GROUP BY ...
    const matching = promptFeatures(render([...unrelated, itemOf(spider, 'dev-35')]), goldOf(item), index);
    expect(matching).toMatchObject({ examples: 3, skeletonMatch: true });
  });

  it('reads an execution error, an empty result and an explanation in correction and revision prompts', () => {
    const item = itemOf(spider, 'dev-22');
    const schema = renderSchemaDdl(schemaOf(spider, item));
    const correction = (errorClass: string, feedback: string): string =>
      text(renderTemplate(correct, { schema, evidence_line: '', question: item.question, sql: 'SELECT name FROM stadium', error_class: errorClass, feedback }));
    expect(promptFeatures(correction('schema-linking', 'SQLite error: no such column: T2.nme'), goldOf(item), index)).toMatchObject({ feedbackError: true, feedbackEmpty: false });
    expect(promptFeatures(correction('empty', 'The query ran but returned no rows.'), goldOf(item), index)).toMatchObject({ feedbackError: false, feedbackEmpty: true });
    const revision = (execution: string, explanation: string, contents: string): string => text(renderTemplate(revise, {
      schema, demonstrations: 'Question: How many heads are older than 56?\nSQL: SELECT count(*) FROM head WHERE age > 56', evidence_line: '',
      question: item.question, sql: 'SELECT name FROM stadium', execution, explanation, contents,
    }));
    const full = promptFeatures(revision('the query failed: no such column: nme', 'The query lists stadium names.', 'stadium.name: "Stark\'s Park"'), goldOf(item), index);
    expect(full).toMatchObject({ feedbackError: true, feedbackExplanation: true, values: true, examples: 1 });
    const bare = promptFeatures(revision('the query ran and returned 10 rows (columns: name)', '', ''), goldOf(item), index);
    expect(bare).toMatchObject({ feedbackError: false, feedbackEmpty: false, feedbackExplanation: false, values: false });
  });

  it('sees BIRD evidence and maps BIRD difficulty to hardness', () => {
    const item = bird.items.find((i) => i.evidence && i.difficulty === 'challenging') ?? bird.items.find((i) => i.evidence)!;
    const schema = schemaOf(bird, item);
    const withEvidence = promptFeatures(zeroShotPrompt(schema, item), goldOf(item), index);
    const withoutEvidence = promptFeatures(zeroShotPrompt(schema, { ...item, evidence: undefined }), goldOf(item), index);
    expect(withEvidence.evidence).toBe(true);
    expect(withoutEvidence.evidence).toBe(false);
    expect(withEvidence.hardness).toBe({ simple: 'easy', moderate: 'medium', challenging: 'hard' }[item.difficulty!]);
    expect(withEvidence.goldReachable).toBe(true);
  });

  it('reads the column-line schema view (UCS-SQL) with its sample values', () => {
    const item = itemOf(spider, 'dev-22');
    const prompt = `### Schema (pre-filtered, with column descriptions)\n# Table concert\n- \`concert\`.\`stadium_id\` (text)\n# Table stadium\n- \`stadium\`.\`name\` (text) e.g. "Stark's Park"\n- \`stadium\`.\`stadium_id\` (int)\n\nQuestion: ${item.question}`;
    expect(promptFeatures(prompt, goldOf(item), index)).toMatchObject({ schemaRecall: 1, goldReachable: true, noiseTables: 0, noiseColumns: 0, values: true });
  });

  it('a prompt that shows no schema cannot reach the gold', () => {
    const item = itemOf(spider, 'dev-22');
    expect(promptFeatures(`Question: ${item.question}`, goldOf(item), index)).toMatchObject({ schemaRecall: 0, goldReachable: false });
  });
});
