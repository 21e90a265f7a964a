import { join } from 'node:path';
import { parseModelCatalog, type ChatMessage, type ModelCatalog } from '@sqlsweep/llm';
import { parseSimConfig, type SimConfig } from '../sim-config';

/** The Spider and BIRD samples copied into the repository (see their licence note there). */
export const BENCHMARK_SAMPLES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'benchmark-samples');
export const BIRD_SAMPLE = join(BENCHMARK_SAMPLES, 'bird-sample');
export const SPIDER_SAMPLE = join(BENCHMARK_SAMPLES, 'spider-sample');

/** Simulated models with one behaviour each, for tests. */
export const TEST_SIM_CONFIG: SimConfig = parseSimConfig(
  {
    models: {
      't-ok': { accuracy: 1 },
      't-wrong': { accuracy: 0 },
      't-half': { accuracy: 0.5 },
      't-limited': { accuracy: 1, rpm: 1, burstSeconds: 60 },
      't-limited-free': { accuracy: 1, rpm: 1, burstSeconds: 60, billingSentenceOn429: true },
      't-flaky': { accuracy: 1, serverErrorRate: 1 },
      't-drop': { accuracy: 1, dropRate: 1 },
      't-slow': { accuracy: 1, latencyMs: { median: 3000, p95: 3000 } },
      't-broke': { accuracy: 1, quotaExhausted: true },
    },
  },
  'TEST_SIM_CONFIG',
);

const pricing = { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 };
const limits = { rpm: 100_000, inputTpm: 100_000_000, outputTpm: 100_000_000, concurrency: 64 };

export function testCatalog(): ModelCatalog {
  const model = (provider: string) => ({ provider, pricing, contextWindow: 128_000, limits });
  return parseModelCatalog(
    {
      providers: {
        sim: { kind: 'openai-compatible', baseUrlEnv: 'SIM_URL', apiKeyEnv: 'SIM_KEY', simulated: true, timeoutMs: 10_000 },
        'sim-impatient': { kind: 'openai-compatible', baseUrlEnv: 'SIM_URL', apiKeyEnv: 'SIM_KEY', timeoutMs: 300 },
        'sim-anthropic': { kind: 'anthropic', baseUrlEnv: 'SIM_URL', apiKeyEnv: 'SIM_KEY', simulated: true, timeoutMs: 10_000 },
        'sim-anthropic-impatient': { kind: 'anthropic', baseUrlEnv: 'SIM_URL', apiKeyEnv: 'SIM_KEY', simulated: true, timeoutMs: 300 },
      },
      models: {
        't-ok': model('sim'),
        't-wrong': model('sim'),
        't-half': model('sim'),
        't-limited': model('sim'),
        't-limited-free': model('sim'),
        't-flaky': model('sim'),
        't-drop': model('sim'),
        't-slow': model('sim-impatient'),
        't-broke': model('sim'),
        'claude-t-ok': { ...model('sim-anthropic'), apiModel: 't-ok' },
        'claude-t-limited': { ...model('sim-anthropic'), apiModel: 't-limited' },
        'claude-t-broke': { ...model('sim-anthropic'), apiModel: 't-broke' },
        'claude-t-flaky': { ...model('sim-anthropic'), apiModel: 't-flaky' },
        'claude-t-slow': { ...model('sim-anthropic-impatient'), apiModel: 't-slow' },
      },
    },
    'testCatalog()',
  );
}

/** The prompt shape of the zero-shot baseline: schema DDL, then the question (and BIRD evidence). */
export function sqlPrompt(question: string, evidence?: string, ddl = 'CREATE TABLE t (id INTEGER PRIMARY KEY);'): ChatMessage[] {
  return [
    { role: 'system', content: 'You are a SQLite expert. Answer with one SQLite query in a ```sql fenced block.' },
    { role: 'user', content: `${ddl}\n\nQuestion: ${question}${evidence ? `\nEvidence: ${evidence}` : ''}` },
  ];
}

export function sqlOf(output: string): string {
  const m = /```sql\n([\s\S]*?)\n```/.exec(output);
  if (!m) throw new Error(`no sql block in: ${output}`);
  return m[1]!;
}
