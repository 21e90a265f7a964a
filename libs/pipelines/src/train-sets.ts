/**
 * Training sets as stages. A stage that reads a train-items stage for every training item (`trainItemsOf`, wired as
 * `X[*]`) does not list the training items' keys itself: one training-set stage per (variant, X), named `X[*]`,
 * lists them and stores which key each training item's result has. The stage reading it lists the set's key alone.
 * Without it, every (variant, item) of such a stage planned hundreds of keys (on BIRD, 9,428 per training set), and
 * every training result stored made the dependents lookup visit one row per evaluated item of each variant reading it.
 *
 * A reading stage is keyed by the set's key, as by any input's: the set's key hashes its members, so members that
 * differ make another set and other readers. Keying each reader by every member instead, as before sets, hashed the
 * whole training set again for every (variant, item): 5 ms per reading stage on 5,000 training items (6.5 s of a
 * 9.3 s dry run of UCS-SQL and DR-Chain over 300 items). The worker expands a set input back into `<input>/<trainItemId>` entries, so the stage's code
 * reads the same map.
 */

/** Where a training-set stage sits in the plan: it is no item's, and PlannedStage rows need an item id. */
export const TRAIN_SET_ITEM = '*';

/**
 * `X[*]`: the training-set stage gathering train-items stage `X` (what a graph wires), and the plan's name for a
 * training set a stage reads as its input `X`.
 */
export const trainSetName = (x: string) => `${x}[*]`;

/** `X` of `X[*]`; undefined for a name that is no training set's. */
export const trainSetOf = (name: string): string | undefined => (name.endsWith('[*]') ? name.slice(0, -'[*]'.length) : undefined);

export const isTrainSetStage = (stage: string) => trainSetOf(stage) !== undefined;

/** The training-set stages a graph plans (given training items): one per train-items stage some node reads whole. */
export function trainSetStages(graph: ReadonlyArray<{ inputs: Readonly<Record<string, string>> }>): string[] {
  return [...new Set(graph.flatMap((node) => Object.values(node.inputs).filter(isTrainSetStage)))];
}

/** What a training-set stage stores: each training item's result key, by training item id. */
export interface TrainSetOutput { members: Record<string, string> }

/** The output of a training-set stage whose inputs (training item id -> key) are `inputs`: no result is read. */
export function trainSetOutput(inputs: Readonly<Record<string, string>>): TrainSetOutput {
  return { members: { ...inputs } };
}

/** The name a stage's context gives the result of training item `trainItemId` of a set read as `input`. */
export const trainItemInputName = (input: string, trainItemId: string) => `${input}/${trainItemId}`;
