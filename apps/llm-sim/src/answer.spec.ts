import { loadDataset, renderSchemaDdl, type DatabaseSchema, type Dataset, type DatasetItem } from '@sqlsweep/datasets';
import { loadTemplate, renderTemplate } from '@sqlsweep/pipelines/src/template';
import { answerFor, type AnswerParams } from './answer';
import type { AnswerWeights } from './answer-model';
import { GoldIndex, type GoldItem } from './gold-index';
import { DEFAULT_SIM_CONFIG_FILE, loadSimConfig } from './sim-config';
import { BIRD_SAMPLE, SPIDER_SAMPLE } from './testing/sim-fixtures';

/** The answer model on single real prompts (templates of libs/pipelines), with the weights configs/llm-sim.yaml gives. */
const zeroShot = loadTemplate('zero-shot.generate');
const fewShot = loadTemplate('baselines.few-shot');
const correct = loadTemplate('rb-sql.correct');
const text = (messages: Array<{ content: string }>): string => messages.map((m) => m.content).join('\n');

const models = Object.entries(loadSimConfig(DEFAULT_SIM_CONFIG_FILE).models).filter(([, m]) => m.weights) as Array<[string, { weights: AnswerWeights }]>;

describe('answerFor with the configured answer models', () => {
  let spider: Dataset;
  let bird: Dataset;
  let index: GoldIndex;
  const dbOf = (ds: Dataset, item: DatasetItem): DatabaseSchema => ds.databases.find((d) => d.dbId === item.dbId)!;
  const itemOf = (id: string): DatasetItem => spider.items.find((i) => i.id === id)!;
  const goldOf = (item: DatasetItem): GoldItem => index.findTarget(`Question: ${item.question}\n${item.evidence ?? ''}`)!;
  const only = (schema: DatabaseSchema, tables: string[]): DatabaseSchema => ({ ...schema, tables: schema.tables.filter((t) => tables.includes(t.name.toLowerCase())) });
  const zeroShotPrompt = (schema: DatabaseSchema, item: DatasetItem, evidence = item.evidence): string =>
    text(renderTemplate(zeroShot, { schema: renderSchemaDdl(schema), evidence_line: evidence ? `Evidence: ${evidence}\n` : '', question: item.question }));
  const params = (model: string, weights: AnswerWeights, more: Partial<AnswerParams> = {}): AnswerParams => ({ seed: 3, model, weights, temperature: 0, sampleIndex: 0, ...more });

  beforeAll(async () => {
    spider = await loadDataset({ format: 'spider', path: SPIDER_SAMPLE, sampleValues: 0 });
    bird = await loadDataset({ format: 'bird', path: BIRD_SAMPLE, sampleValues: 0 });
    index = new GoldIndex([BIRD_SAMPLE, SPIDER_SAMPLE]);
  });

  it('has the hand-set and calibrated models', () => {
    expect(models.map(([name]) => name)).toEqual(expect.arrayContaining(['sim-strong', 'sim-weak', 'claude-sim', 'sim-chatgpt', 'sim-gpt4']));
  });

  describe.each(models)('%s', (model, { weights }) => {
    // dev-22: SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON ... GROUP BY T1.stadium_id (4 tables in concert_singer)
    const answer = (prompt: string) => answerFor(index, goldOf(itemOf('dev-22')), 'sql', params(model, weights), prompt);

    it('removing a gold table drops the probability to the floor, and the mistake uses a table the prompt shows', () => {
      const item = itemOf('dev-22');
      const full = answer(zeroShotPrompt(dbOf(spider, item), item));
      const without = answer(zeroShotPrompt(only(dbOf(spider, item), ['concert', 'singer', 'singer_in_concert']), item));
      expect(full.probability).toBeGreaterThan(weights.floor);
      expect(without.probability).toBe(weights.floor);
      expect(without.correct).toBe(false);
      expect(without.corruption).toBe('wrong_table');
      expect(without.text).not.toMatch(/\bstadium\b/i);
      expect(without.text).toMatch(/\b(?:singer|singer_in_concert)\b/);
    });

    it('adding irrelevant tables lowers the probability', () => {
      const item = itemOf('dev-22');
      const goldOnly = answer(zeroShotPrompt(only(dbOf(spider, item), ['concert', 'stadium']), item)).probability;
      const plusOne = answer(zeroShotPrompt(only(dbOf(spider, item), ['concert', 'stadium', 'singer']), item)).probability;
      const full = answer(zeroShotPrompt(dbOf(spider, item), item)).probability;
      expect(plusOne).toBeLessThan(goldOnly);
      expect(full).toBeLessThan(plusOne);
    });

    it('adding a skeleton-matching example raises the probability', () => {
      const item = itemOf('dev-22');
      const shot = (q: DatasetItem): string => `Question: ${q.question}\n\`\`\`sql\n${q.goldSql}\n\`\`\``;
      const prompt = (shots: DatasetItem[]): string => text(renderTemplate(fewShot, {
        examples: `### Examples\n${shots.map(shot).join('\n\n')}\n\n`, schema: renderSchemaDdl(dbOf(spider, item)), evidence_line: '', question: item.question,
      }));
      const unrelated = spider.items.filter((i) => i.dbId !== item.dbId && !/JOIN|GROUP/i.test(i.goldSql)).slice(0, 2);
      const plain = answer(prompt(unrelated)).probability;
      const matching = answer(prompt([...unrelated, itemOf('dev-35')])).probability;
      expect(matching).toBeGreaterThan(plain);
    });

    it('a correction prompt with the execution error raises the probability over one without', () => {
      const item = itemOf('dev-22');
      const correction = (feedback: string): string => text(renderTemplate(correct, {
        schema: renderSchemaDdl(dbOf(spider, item)), evidence_line: '', question: item.question, sql: 'SELECT nme FROM stadium', error_class: 'schema-linking', feedback,
      }));
      expect(answer(correction('SQLite error: no such column: nme')).probability).toBeGreaterThan(answer(correction('(no feedback)')).probability);
    });
  });

  it('common random numbers: the same prompt gets the same answer, whatever the temperature of sample 0', () => {
    const [model, { weights }] = models.find(([name]) => name === 'sim-weak')!;
    for (const item of spider.items.filter((i) => i.split === 'dev').slice(0, 40)) {
      const prompt = zeroShotPrompt(dbOf(spider, item), item);
      const a = answerFor(index, goldOf(item), 'sql', params(model, weights), prompt);
      const b = answerFor(index, goldOf(item), 'sql', params(model, weights), prompt);
      const hot = answerFor(index, goldOf(item), 'sql', params(model, weights, { temperature: 0.7 }), prompt);
      expect(b.text).toBe(a.text);
      expect(hot.correct).toBe(a.correct);
    }
  });

  it('a prompt that gives more never turns a right answer wrong, over many items (evidence; less schema noise)', () => {
    for (const [model, { weights }] of models) {
      let gained = 0;
      for (const item of bird.items) {
        const plain = answerFor(index, goldOf(item), 'sql', params(model, weights), zeroShotPrompt(dbOf(bird, item), item, ''));
        const withEvidence = answerFor(index, goldOf(item), 'sql', params(model, weights), zeroShotPrompt(dbOf(bird, item), item));
        expect(withEvidence.probability).toBeGreaterThanOrEqual(plain.probability);
        if (plain.correct) expect(withEvidence.correct).toBe(true);
        if (!plain.correct && withEvidence.correct) gained++;
      }
      expect([model, gained > 0]).toEqual([model, true]);
    }
    const [model, { weights }] = models.find(([name]) => name === 'sim-weak')!;
    let gained = 0;
    for (const item of spider.items.filter((i) => i.split === 'dev')) {
      const gold = goldOf(item);
      const goldTables = new Set(index.schemaOf(gold).tables.filter((t) => new RegExp(`\\b${t}\\b`, 'i').test(item.goldSql)).map((t) => t.toLowerCase()));
      const full = answerFor(index, gold, 'sql', params(model, weights), zeroShotPrompt(dbOf(spider, item), item));
      const lean = answerFor(index, gold, 'sql', params(model, weights), zeroShotPrompt(only(dbOf(spider, item), [...goldTables]), item));
      if (!lean.features.goldReachable) continue; // a table name the regex above missed
      if (full.correct) expect(lean.correct).toBe(true);
      if (!full.correct && lean.correct) gained++;
    }
    expect(gained).toBeGreaterThan(0);
  });
});
