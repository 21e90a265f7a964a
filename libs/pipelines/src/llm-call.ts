import type { EstimateContext, LlmCall, StageItem } from './stage-context';
import { renderTemplate, type PromptTemplate } from './template';

/** The prompts' evidence slot: BIRD's external knowledge on its own line, or nothing. */
export function evidenceLine(item: Pick<StageItem, 'evidence'>): string {
  return item.evidence ? `Evidence: ${item.evidence}\n` : '';
}

/**
 * The LLM call of a stage that renders `template`: model, temperature, length and sample index from the params the
 * stage reads (a stage with its own temperature knob passes it).
 */
export function templateCall(
  ctx: Pick<EstimateContext, 'params'>, template: PromptTemplate, values: Record<string, string>, expectedOutputTokens: number,
  temperature = Number(ctx.params.temperature),
): LlmCall {
  return {
    model: String(ctx.params.model),
    messages: renderTemplate(template, values),
    temperature,
    maxTokens: Number(ctx.params.maxTokens),
    sampleIndex: Number(ctx.params.sampleIndex),
    templateVersion: template.hash,
    expectedOutputTokens,
  };
}
