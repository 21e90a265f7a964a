import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataset, type Dataset } from '@sqlsweep/datasets';
import type { LlmResponse } from '@sqlsweep/llm';
import { stageImplementations, type LlmStage, type StageContext } from '@sqlsweep/pipelines';
import { answerFor, detectProtocol } from '../answer';
import { decompositionOf } from '../decomposition';
import { GoldIndex } from '../gold-index';
import { r3Protocols, withoutRetrievedContext } from './r3';

const templates = join(__dirname, '..', '..', '..', '..', 'libs', 'pipelines', 'templates');

/** A template file as the simulator sees its prompt: system text and user turn, slots filled with plain text. */
function instructions(name: string): string {
  const source = readFileSync(join(templates, `${name}.md`), 'utf8');
  return source.replace(/^--- \w+ ---$/gm, '').replace(/\{\{\w+\}\}/g, 'x');
}

describe('simulator protocols for the R3 prompts', () => {
  it.each([
    ['r3.link', 'tables'],
    ['r3.decompose', 'sub_questions'],
    ['r3.generate', 'method:r3-generate'],
    ['r3.generate-direct', 'sql'],
  ])('%s is answered with the %s protocol', (template, protocol) => {
    expect(detectProtocol(instructions(template))).toBe(protocol);
  });

  it('reads no instruction in the retrieved context (general-knowledge text says "skeleton" and "explain")', () => {
    const context = '#### Contextual Information:\n- skeleton: the hard structure that supports a body\n- explanation: a statement that makes something clear\n\n';
    const source = readFileSync(join(templates, 'r3.decompose.md'), 'utf8').replace(/^--- \w+ ---$/gm, '').replace('{{context}}', context);
    const prompt = source.replace(/\{\{\w+\}\}/g, 'x');
    expect(detectProtocol(prompt)).toBe('skeleton');
    expect(detectProtocol(withoutRetrievedContext(prompt))).toBe('sub_questions');
  });

  it('answers the generation prompt with the (possibly corrupted) SQL, fenced', () => {
    const rendered = r3Protocols[0].render({ sql: 'SELECT 1', prompt: '', correct: true } as Parameters<(typeof r3Protocols)[0]['render']>[0]);
    expect(rendered).toBe('```sql\nSELECT 1\n```');
  });
});

describe('the simulator on R3 generation prompts, which show the sub-questions and not the question', () => {
  const minibench = join(__dirname, '..', '..', '..', '..', 'data', 'minibench', 'dist');
  let index: GoldIndex;
  let dataset: Dataset;
  const llmStage = (name: string) => stageImplementations[name] as LlmStage;
  beforeAll(async () => {
    index = new GoldIndex([minibench]);
    dataset = await loadDataset({ format: 'minibench', path: minibench });
  });

  it.each([
    ['right', 1],
    ['wrong (one sub-question left out)', 0],
  ])('finds the item from the sub-questions it gave for it, decomposition %s', (_label, accuracy) => {
    const params = { model: 'sim', temperature: 0, maxTokens: 512, sampleIndex: 0, cacheNamespace: '', linkMatchThreshold: 0.5 };
    let decomposed = 0;
    for (const d of dataset.items) {
      const item = { itemId: d.id, dbId: d.dbId, question: d.question, evidence: d.evidence ?? null, goldSql: d.goldSql };
      const ctx = (inputs: Record<string, unknown>) => ({ item, schema: dataset.databases.find((db) => db.dbId === d.dbId)!, params, inputs }) as unknown as StageContext;
      const gold = index.findTarget(`Question: ${d.question}`)!;
      const answer = answerFor(index, gold, 'sub_questions', { seed: 1, model: 'sim', accuracy, temperature: 0, sampleIndex: 0 });
      const decomposition = llmStage('r3.decompose').parse({ output: answer.text } as LlmResponse, ctx({})) as { subQuestions: string[] };
      const messages = llmStage('r3.generate').prompt(ctx({ decomposition })).messages;
      const text = messages.map((m) => m.content).join('\n');
      if (decompositionOf(d.question).length > 1) {
        decomposed++;
        expect(text.toLowerCase()).not.toContain(d.question.toLowerCase());
      }
      const found = index.findTarget(text);
      expect({ question: found?.question, dbId: found?.dbId }).toEqual({ question: d.question, dbId: d.dbId });
      expect(detectProtocol(`${messages[0]!.content}\n${messages.at(-1)!.content}`)).toBe('method:r3-generate');
    }
    expect(decomposed).toBeGreaterThan(30); // of minibench's 238 items, those the simulator splits into clauses
  });
});
