import { readFileSync, writeFileSync } from 'node:fs';
import { isMap, parseDocument, type YAMLMap } from 'yaml';
import type { AnswerWeights } from '../answer-model';

/** Limits a model that the config does not have yet starts with (those of sim-strong); only its weights are calibrated. */
const NEW_MODEL_LIMITS = { rpm: 3000, tpm: 2000000, outputTpm: 400000, latencyMs: { median: 40, p95: 150, perOutputToken: 0.2 }, serverErrorRate: 0.002 };

/** Writes a nested map on one line (`hardness: { easy: ..., ... }`), as the config's other small maps are. */
function flowStyle(node: unknown): void {
  if (isMap(node)) node.flow = true;
}

/**
 * Writes each model's `weights:` into the simulator config, leaving every other model, key and comment as it is
 * (the `yaml` Document API edits the parsed file in place). A model the file lacks is added with NEW_MODEL_LIMITS.
 */
export function writeModelWeights(file: string, weights: Readonly<Record<string, AnswerWeights>>, comment: string): void {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0]!.message}`);
  const models = doc.get('models', true);
  if (!isMap(models)) throw new Error(`${file}: expected a "models:" map`);
  for (const [model, w] of Object.entries(weights)) {
    const node = doc.createNode(w) as YAMLMap;
    flowStyle(node.get('hardness', true));
    node.commentBefore = ` ${comment}`;
    const entry = models.get(model, true);
    if (isMap(entry)) {
      entry.set('weights', node);
      entry.delete('accuracy');
    } else {
      const created = doc.createNode({ weights: w, ...NEW_MODEL_LIMITS }) as YAMLMap;
      created.set('weights', node);
      flowStyle(created.get('latencyMs', true));
      models.set(model, created);
    }
  }
  writeFileSync(file, doc.toString({ lineWidth: 120 }));
}
