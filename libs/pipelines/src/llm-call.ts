import type { StageItem } from './stage-context';

/** The prompts' evidence slot: BIRD's external knowledge on its own line, or nothing. */
export function evidenceLine(item: Pick<StageItem, 'evidence'>): string {
  return item.evidence ? `Evidence: ${item.evidence}\n` : '';
}
