import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataset, type DatabaseSchema, type DatasetItem, type SpiderHardness } from '@sqlsweep/datasets';
import type { ChatMessage } from '@sqlsweep/llm';
import { stageImplementations, type LlmStage, type StageContext, type StageItem } from '@sqlsweep/pipelines';
import { DailExamplePool, readSchemaNames } from './dail-examples';
import { readOfficialVerdicts } from './official-verdicts';

/** The shared Spider sample: 297 dev items with the official verdicts of two real systems. */
export const SPIDER_SAMPLE = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'benchmark-samples', 'spider-sample');

/** One dev item with the two prompts the calibration scores and the real systems' verdicts on it. */
export interface CalibrationItem {
  item: StageItem;
  hardness: SpiderHardness;
  /** The prompt of our zero-shot stage (`zero-shot.generate`), as ChatGPT zero-shot was asked. */
  zeroShotPrompt: ChatMessage[];
  /** The few-shot baseline's prompt (`few-shot.generate`) with DAIL-selected examples, as DAIL-SQL + GPT-4 was asked. */
  dailPrompt: ChatMessage[];
  /** Official test-suite execution verdicts: ChatGPT zero-shot, DAIL-SQL + GPT-4. */
  chatgptZeroShot: 0 | 1;
  dailSqlGpt4: 0 | 1;
}

const PARAMS = { model: 'calibration', temperature: 0, maxTokens: 512, sampleIndex: 0, cacheNamespace: '', shots: 5, shotSeed: 0 };

const llmStage = (name: string): LlmStage => {
  const stage = stageImplementations[name];
  if (stage?.kind !== 'llm') throw new Error(`calibration: ${name} is not an LLM stage of libs/pipelines`);
  return stage;
};

const stageItem = (d: DatasetItem): StageItem => ({ itemId: d.id, dbId: d.dbId, question: d.question, evidence: d.evidence ?? null, goldSql: d.goldSql });

/** A stage's prompt for an item, rendered by the stage itself (only item, schema, params and inputs are read). */
function renderPrompt(stage: string, item: StageItem, schema: DatabaseSchema, inputs: Record<string, unknown>): ChatMessage[] {
  return llmStage(stage).prompt({ item, schema, params: PARAMS, inputs } as unknown as StageContext).messages;
}

/** The prompt's text as the simulator reads it: every message's content, in order. */
export const promptText = (messages: readonly ChatMessage[]): string => messages.map((m) => m.content).join('\n');

function readLines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => l.trim());
}

/**
 * The calibration set of the Spider sample (folder `root`, Spider layout with `official-verdicts/` and
 * `predictions/`): every dev item, its two prompts and the verdicts. DAIL's draft for an item is ChatGPT zero-shot's
 * published prediction for it (DAIL-SQL compares a preliminary model's prediction; this is the sample's).
 */
export async function loadCalibrationSet(root = SPIDER_SAMPLE): Promise<CalibrationItem[]> {
  const dataset = await loadDataset({ format: 'spider', path: root });
  const dev = dataset.items.filter((i) => i.split === 'dev');
  const train = dataset.items.filter((i) => i.split === 'train').map(stageItem);
  const chatgpt = readOfficialVerdicts(join(root, 'official-verdicts', 'chatgpt-zeroshot.jsonl'));
  const gpt4 = readOfficialVerdicts(join(root, 'official-verdicts', 'dail-sql-gpt4.jsonl'));
  const drafts = readLines(join(root, 'predictions', 'chatgpt-zeroshot.sql'));
  for (const [name, n] of [['official-verdicts/chatgpt-zeroshot.jsonl', chatgpt.length], ['official-verdicts/dail-sql-gpt4.jsonl', gpt4.length], ['predictions/chatgpt-zeroshot.sql', drafts.length]] as const) {
    if (n !== dev.length) throw new Error(`${join(root, name)}: ${n} lines for ${dev.length} dev items`);
  }
  const pool = new DailExamplePool(train, readSchemaNames(join(root, 'tables.json')));
  const schemas = new Map(dataset.databases.map((d) => [d.dbId, d]));
  return dev.map((d, i) => {
    if (chatgpt[i]!.dbId !== d.dbId || gpt4[i]!.dbId !== d.dbId) throw new Error(`official verdicts line ${i + 1}: db_id differs from dev.json's ${d.dbId}`);
    const item = stageItem(d);
    const schema = schemas.get(d.dbId);
    if (!schema) throw new Error(`${root}: no database ${d.dbId} for ${d.id}`);
    const shots = pool.select(item, drafts[i]!).map((t) => ({ itemId: t.itemId, question: t.question, evidence: t.evidence, sql: t.goldSql }));
    return {
      item,
      hardness: chatgpt[i]!.hardness,
      zeroShotPrompt: renderPrompt('zero-shot.generate', item, schema, {}),
      dailPrompt: renderPrompt('few-shot.generate', item, schema, { shots: { shots, metrics: {} } }),
      chatgptZeroShot: chatgpt[i]!.exec,
      dailSqlGpt4: gpt4[i]!.exec,
    };
  });
}
