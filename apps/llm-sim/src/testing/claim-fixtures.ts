import { parseModelCatalog, type LlmRequest, type ModelCatalog } from '@sqlsweep/llm';
import { parseSimConfig, type SimConfig } from '../sim-config';
import { sqlPrompt } from './sim-fixtures';

/** Calls slow enough to be caught in flight: 't-long' answers after 3 s, 't-mid' after 1 s. */
export const CLAIM_SIM_CONFIG: SimConfig = parseSimConfig(
  {
    models: {
      't-long': { accuracy: 1, latencyMs: { median: 3000, p95: 3000 } },
      't-mid': { accuracy: 1, latencyMs: { median: 1000, p95: 1000 } },
    },
  },
  'CLAIM_SIM_CONFIG',
);

/** A provider timeout of 10 s, as the test catalog's: the old claim TTL (2 x timeout + 60 s) was 80 s with it. */
export function claimCatalog(): ModelCatalog {
  const model = {
    provider: 'sim',
    pricing: { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
    contextWindow: 128_000,
    limits: { rpm: 100_000, inputTpm: 100_000_000, outputTpm: 100_000_000, concurrency: 64 },
  };
  return parseModelCatalog(
    {
      providers: { sim: { kind: 'openai-compatible', baseUrlEnv: 'SIM_URL', apiKeyEnv: 'SIM_KEY', simulated: true, timeoutMs: 10_000 } },
      models: { 't-long': model, 't-mid': model },
    },
    'claimCatalog()',
  );
}

export function claimRequest(model: 't-long' | 't-mid', question: string): LlmRequest {
  return { model, messages: sqlPrompt(question), temperature: 0.7, sampleIndex: 1, templateVersion: 'zero-shot@1' };
}
