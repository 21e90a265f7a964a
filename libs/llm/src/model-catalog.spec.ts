import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LlmError } from './errors';
import { LlmClient } from './llm-client';
import { loadModelCatalog } from './model-catalog';
import { costUsd } from './pricing';
import { estimateTokens } from './tokens';
// nx-ignore-next-line
import { TempDirs } from '@sqlsweep/testing';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

const dir = temp.make('catalog-');
const write = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe('loadModelCatalog', () => {
  it('loads the project catalog', () => {
    const catalog = loadModelCatalog(join(__dirname, '..', '..', '..', 'configs', 'models.yaml'));
    expect(catalog.models['sim-strong']?.provider).toBe('llm-sim');
    expect(catalog.providers['llm-sim']?.simulated).toBe(true);
    expect(catalog.models['gpt-4o-mini']?.limits.rpm).toBeGreaterThan(0);
  });

  it('names the file and the path of every problem', () => {
    const file = write(
      'bad.yaml',
      `providers:\n  p: { kind: openai, apiKeyEnv: K }\nmodels:\n  m:\n    provider: nope\n    pricing: { inputPerMTok: -1, cachedInputPerMTok: 0, outputPerMTok: 1 }\n    contextWindow: 1000\n    limits: { rpm: 1, inputTpm: 1, outputTpm: 1, concurrency: 1 }\n`,
    );
    let err: unknown;
    try {
      loadModelCatalog(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('config');
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain('models.m.pricing.inputPerMTok');
  });

  it('rejects a model naming an unknown provider, and YAML syntax errors', () => {
    const unknown = write(
      'unknown.yaml',
      `providers:\n  p: { kind: openai }\nmodels:\n  m:\n    provider: nope\n    pricing: { inputPerMTok: 1, cachedInputPerMTok: 0, outputPerMTok: 1 }\n    contextWindow: 1000\n    limits: { rpm: 1, inputTpm: 1, outputTpm: 1, concurrency: 1 }\n`,
    );
    expect(() => loadModelCatalog(unknown)).toThrow(/models\.m\.provider: unknown provider "nope"/);
    expect(() => loadModelCatalog(write('syntax.yaml', 'providers: [\n'))).toThrow(/syntax\.yaml: YAML syntax error/);
    expect(() => loadModelCatalog(join(dir, 'missing.yaml'))).toThrow(/missing\.yaml: cannot read/);
  });

  it('takes limits declared the way the provider counts them, and names the model of one that is not', () => {
    const catalog = (kind: string, limits: string) =>
      write(
        `limits-${kind}.yaml`,
        `providers:\n  p: { kind: ${kind}, apiKeyEnv: K, baseUrl: 'http://x' }\nmodels:\n  m:\n    provider: p\n    pricing: { inputPerMTok: 1, cachedInputPerMTok: 0, outputPerMTok: 1 }\n    contextWindow: 1000\n    limits: ${limits}\n`,
      );
    expect(loadModelCatalog(catalog('openai', '{ rpm: 1, tpm: 10, concurrency: 1 }')).models['m']?.limits.tpm).toBe(10);
    expect(() => loadModelCatalog(catalog('openai', '{ rpm: 1, inputTpm: 10, outputTpm: 10, concurrency: 1 }'))).toThrow(/models\.m\.limits: OpenAI counts one TPM \(prompt \+ max_tokens\): declare tpm/);
    expect(() => loadModelCatalog(catalog('anthropic', '{ rpm: 1, tpm: 10, concurrency: 1 }'))).toThrow(/models\.m\.limits: Anthropic counts input \(ITPM\) and output \(OTPM\) apart/);
    expect(() => loadModelCatalog(catalog('openai-compatible', '{ rpm: 1, tpm: 10, inputTpm: 10, outputTpm: 10, concurrency: 1 }'))).toThrow(/models\.m\.limits: declare either tpm .* or inputTpm and outputTpm, not both/);
    expect(() => loadModelCatalog(catalog('openai-compatible', '{ rpm: 1, inputTpm: 10, concurrency: 1 }'))).toThrow(/models\.m\.limits: declare tpm .*, or both inputTpm and outputTpm/);
  });
});

describe('tokens and cost', () => {
  it('counts chat tokens with a real BPE tokenizer', () => {
    const n = estimateTokens('gpt-4o-mini', [{ role: 'user', content: 'How many singers do we have?' }]);
    // 7 content tokens + role + per-message and reply overhead
    expect(n).toBeGreaterThanOrEqual(12);
    expect(n).toBeLessThanOrEqual(16);
  });

  it('prices cached input at the cached rate', () => {
    const pricing = { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 };
    expect(costUsd(pricing, { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 0 })).toBe(2);
    expect(costUsd(pricing, { inputTokens: 1_000_000, cachedInputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(8.5);
    // Anthropic cache writes: a premium on the written part only.
    const anthropic = { ...pricing, cacheWritePerMTok: 2.5 };
    expect(costUsd(anthropic, { inputTokens: 2_000_000, cachedInputTokens: 0, cacheWriteInputTokens: 1_000_000, outputTokens: 0 })).toBe(4.5);
  });
});

describe('LlmClient.estimateCall', () => {
  it('gives the planner tokens and list-price cost without calling anything', () => {
    const client = new LlmClient({ catalog: loadModelCatalog(join(__dirname, '..', '..', '..', 'configs', 'models.yaml')), env: {} });
    const messages = [{ role: 'user' as const, content: 'How many singers do we have?' }];
    const e = client.estimateCall({ model: 'gpt-4o-mini', messages, temperature: 0, sampleIndex: 0, templateVersion: 'v1' }, 20);
    expect(e.inputTokens).toBe(estimateTokens('gpt-4o-mini', messages));
    expect(e.outputTokens).toBe(20);
    expect(e.costUsd).toBeCloseTo((e.inputTokens * 0.15 + 20 * 0.6) / 1e6, 12);
    expect(() => client.estimateCall({ model: 'nope', messages, temperature: 0, sampleIndex: 0, templateVersion: 'v1' })).toThrow(/unknown model "nope"/);
  });
});
