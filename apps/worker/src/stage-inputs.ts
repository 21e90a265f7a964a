import { trainItemInputName, trainSetOf, type TrainSetOutput } from '@sqlsweep/pipelines';

/** A result as a stage reads it: its output. */
export type Stored = { output: unknown };

/** An input whose result is not stored: its name as the stage reads it, and its key. */
export interface MissingInput { name: string; key: string }

/**
 * The outputs a stage's code reads, by input name, from what its job lists (`listed`: input name -> key) and the
 * results `read` finds by key. A training set listed as `input[*]` becomes one `input/<trainItemId>` entry per member
 * of the set, read after the set itself. Either every input, or the first one missing.
 */
export async function stageInputs(
  listed: Readonly<Record<string, string>>, stored: Map<string, Stored>, read: (keys: string[]) => Promise<Map<string, Stored>>,
): Promise<{ inputs: Record<string, unknown> } | { missing: MissingInput }> {
  const inputs: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(listed)) {
    const r = stored.get(key);
    if (!r) return { missing: { name, key } };
    const setInput = trainSetOf(name);
    if (setInput === undefined) {
      inputs[name] = r.output;
      continue;
    }
    const members = Object.entries((r.output as TrainSetOutput).members);
    const found = await read(members.map(([, memberKey]) => memberKey));
    for (const [trainItemId, memberKey] of members) {
      const m = found.get(memberKey);
      if (!m) return { missing: { name: trainItemInputName(setInput, trainItemId), key: memberKey } };
      inputs[trainItemInputName(setInput, trainItemId)] = m.output;
    }
  }
  return { inputs };
}
