import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { VariantSpec } from '@sqlsweep/contracts';
import { corpusDir, resolveCorpusPath } from './corpus-dir';
import type { FileKnob, PipelineDefinition } from './pipeline';

/**
 * Planner and workers resolve a knob's path alike: relative to the corpus directory and inside it (no absolute path,
 * no `..`, no link out), to the file's real path; a CorpusPathError says why not.
 */
export function resolveKnobPath(path: string, dir = corpusDir()): string {
  return resolveCorpusPath(path, dir);
}

/** The file knobs a stage of this variant's graph reads, with the path each names; a knob nothing reads needs no file. */
export function fileKnobsRead(pipeline: PipelineDefinition, variant: VariantSpec): Array<FileKnob & { path: string }> {
  if (!pipeline.fileKnobs?.length) return [];
  const reads = new Set(pipeline.graph(variant).flatMap((n) => n.reads));
  return pipeline.fileKnobs.filter((f) => reads.has(f.sha256Param)).map((f) => ({ ...f, path: String(variant.params[f.knob]) }));
}

/** `path` is the knob's path in the corpus directory (a link there is named, not its target). */
export interface KeyedFile { path: string; bytes: Buffer; sha256: string }

/**
 * Reads a file knob's file in a stage, failing when its content is not what the stage was keyed on: a worker on
 * another machine with another copy, or a file edited since the sweep was planned. A stage planned without the
 * hash (before file knobs were hashed) reads the file unchecked, as it was keyed. The path is checked against this
 * worker's corpus directory again: a stage job is not trusted to have come from this planner.
 */
export function readKeyedFile(stage: string, knob: FileKnob, params: Record<string, unknown>, dir = corpusDir()): KeyedFile {
  const path = resolve(dir, String(params[knob.knob]));
  let bytes: Buffer;
  try {
    bytes = readFileSync(resolveKnobPath(String(params[knob.knob]), dir));
  } catch (e) {
    throw new Error(`${stage}: cannot read ${knob.description} (knob ${knob.knob}) at ${path}: ${(e as Error).message}`);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const planned = params[knob.sha256Param];
  if (planned !== undefined && planned !== sha256) {
    throw new Error(
      `${stage}: ${knob.description} (knob ${knob.knob}) at ${path} has SHA-256 ${sha256.slice(0, 12)}, but the sweep was planned with ` +
      `${String(planned).slice(0, 12)}: this worker's file is not the one the planner hashed (edited since, or another copy on this machine). ` +
      'Restore that file here, or plan the sweep again to run with the new one.',
    );
  }
  return { path, bytes, sha256 };
}
