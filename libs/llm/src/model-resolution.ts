import { LlmError } from './errors';
import type { ModelCatalog, ModelConfig, ProviderConfig } from './model-catalog';
import type { LlmProvider } from './providers/provider';

/** A catalog model with its provider's settings. */
export interface ResolvedModel {
  name: string;
  config: ModelConfig;
  providerName: string;
  providerConfig: ProviderConfig;
}

/** The model id the provider's API knows the model by. */
export function apiModelOf(m: ResolvedModel): string {
  return m.config.apiModel ?? m.name;
}

/**
 * Model names to their catalog entry and provider client: API keys and base URLs read from `env` under the names
 * the catalog gives, one provider client per provider, made on first use.
 */
export class ModelResolver {
  private readonly providers = new Map<string, LlmProvider>();

  constructor(
    private readonly catalog: ModelCatalog,
    private readonly env: Record<string, string | undefined>,
  ) {}

  resolve(model: string): ResolvedModel {
    const config = this.catalog.models[model];
    if (!config) {
      throw new LlmError('config', `unknown model "${model}" (the model catalog has: ${Object.keys(this.catalog.models).join(', ')})`);
    }
    const providerConfig = this.catalog.providers[config.provider]!;
    return { name: model, config, providerName: config.provider, providerConfig };
  }

  /** Fails with LlmError('config') naming every unknown model and missing key, before a sweep starts. */
  assertUsable(models: string[]): void {
    const problems: string[] = [];
    for (const model of new Set(models)) {
      try {
        const m = this.resolve(model);
        this.apiKey(m.providerName, m.providerConfig);
        this.baseUrl(m.providerName, m.providerConfig);
      } catch (err) {
        problems.push(`${model}: ${(err as Error).message}`);
      }
    }
    if (problems.length > 0) throw new LlmError('config', `models not usable:\n  ${problems.join('\n  ')}`);
  }

  provider(m: ResolvedModel): LlmProvider {
    let provider = this.providers.get(m.providerName);
    if (provider) return provider;
    const p = m.providerConfig;
    const apiKey = this.apiKey(m.providerName, p);
    const baseUrl = this.baseUrl(m.providerName, p);
    const common = { name: m.providerName, apiKey, ...(baseUrl ? { baseUrl } : {}) };
    // The SDKs load on first use: planning and the CLI's other commands never call a provider, and they are ~20 MB.
    if (p.kind === 'anthropic') {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { AnthropicProvider } = require('./providers/anthropic.provider') as typeof import('./providers/anthropic.provider');
      provider = new AnthropicProvider(common);
    } else {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { OpenAiCompatibleProvider } = require('./providers/openai-compatible.provider') as typeof import('./providers/openai-compatible.provider');
      // The OpenAI SDK appends /chat/completions to the base URL; servers expect it under /v1.
      const withV1 = baseUrl && !/\/v1\/?$/.test(baseUrl) ? `${baseUrl.replace(/\/$/, '')}/v1` : baseUrl;
      provider = new OpenAiCompatibleProvider({
        ...common,
        ...(withV1 ? { baseUrl: withV1 } : {}),
        maxTokensField: p.kind === 'openai' ? 'max_completion_tokens' : 'max_tokens',
      });
    }
    this.providers.set(m.providerName, provider);
    return provider;
  }

  private apiKey(providerName: string, p: ProviderConfig): string {
    if (!p.apiKeyEnv) {
      if (p.kind === 'openai-compatible') return 'none';
      throw new LlmError('config', `provider "${providerName}": apiKeyEnv is not set in the model catalog`);
    }
    const key = this.env[p.apiKeyEnv];
    if (!key) throw new LlmError('config', `provider "${providerName}": environment variable ${p.apiKeyEnv} is not set`);
    return key;
  }

  private baseUrl(providerName: string, p: ProviderConfig): string | undefined {
    if (p.baseUrlEnv) {
      const url = this.env[p.baseUrlEnv] ?? p.baseUrl;
      if (!url) throw new LlmError('config', `provider "${providerName}": environment variable ${p.baseUrlEnv} is not set`);
      return url;
    }
    return p.baseUrl;
  }
}
