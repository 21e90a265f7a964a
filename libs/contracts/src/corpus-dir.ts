import { resolve } from 'node:path';

/** The folder file knobs (R3's `ragCorpus`) may name files in, when SQLSWEEP_CORPUS_DIR does not say otherwise. */
export const DEFAULT_CORPUS_DIR = 'data';

/**
 * The corpus directory: SQLSWEEP_CORPUS_DIR, or `data`, resolved from `from` (the working directory unless given).
 * Read from the environment where it is used, so set-up, the planner (CLI or orchestrator) and every worker apply the
 * same rule.
 */
export function corpusDir(env: Record<string, string | undefined> = process.env, from = process.cwd()): string {
  return resolve(from, env['SQLSWEEP_CORPUS_DIR'] || DEFAULT_CORPUS_DIR);
}
