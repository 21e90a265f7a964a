import { createHash } from 'node:crypto';
import { readFileSync, statSync, type BigIntStats } from 'node:fs';
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

/**
 * `path` is the knob's path in the corpus directory (a link there is named, not its target). `read` reads the file,
 * refusing it when its content is no longer the one `sha256` names.
 */
export interface KeyedFile { path: string; sha256: string; read(): Buffer }

/**
 * Reads a file knob's file in a stage, failing when its content is not what the stage was keyed on: a worker on
 * another machine with another copy, or a file edited since the sweep was planned. A stage planned without the
 * hash (before file knobs were hashed) reads the file unchecked, as it was keyed. The path is checked against this
 * worker's corpus directory again: a stage job is not trusted to have come from this planner. The file is hashed
 * once per process while it stays unchanged (`fileSha256`), not by every stage job that reads it.
 */
export function readKeyedFile(stage: string, knob: FileKnob, params: Record<string, unknown>, dir = corpusDir()): KeyedFile {
  const path = resolve(dir, String(params[knob.knob]));
  let real: string;
  let sha256: string;
  try {
    real = resolveKnobPath(String(params[knob.knob]), dir);
    sha256 = fileSha256(real);
  } catch (e) {
    throw new Error(`${stage}: cannot read ${knob.description} (knob ${knob.knob}) at ${path}: ${(e as Error).message}`);
  }
  const planned = params[knob.sha256Param];
  const refuse = (found: string) => new Error(
    `${stage}: ${knob.description} (knob ${knob.knob}) at ${path} has SHA-256 ${found.slice(0, 12)}, but ` +
    (planned === undefined ? `had ${sha256.slice(0, 12)} when this stage checked it: it was edited meanwhile. ` : `the sweep was planned with ${String(planned).slice(0, 12)}: ` +
      "this worker's file is not the one the planner hashed (edited since, or another copy on this machine). ") +
    'Restore that file here, or plan the sweep again to run with the new one.',
  );
  if (planned !== undefined && planned !== sha256) throw refuse(sha256);
  return {
    path, sha256,
    read: () => {
      let bytes: Buffer;
      try {
        bytes = readFileSync(real);
      } catch (e) {
        throw new Error(`${stage}: cannot read ${knob.description} (knob ${knob.knob}) at ${path}: ${(e as Error).message}`);
      }
      const now = sha256Of(bytes);
      if (now !== sha256) throw refuse(now);
      return bytes;
    },
  };
}

/** The SHA-256 of files by real path, with the stat they had when hashed. */
const hashed = new Map<string, { stamp: string; sha256: string }>();

/**
 * The SHA-256 of the file at `realPath`, read and hashed again only when its stat changed (device, inode, size,
 * modification and change times in nanoseconds: a write moves the change time, which no one can set back). A file
 * changed within the last second, or while it was read, is hashed again on every call: file systems stamp times from a
 * clock that may tick only every few milliseconds, so an edit in the same tick would keep the stat (as git does for
 * its index).
 */
function fileSha256(realPath: string): string {
  const stampOf = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  const before = statSync(realPath, { bigint: true });
  const known = hashed.get(realPath);
  if (known?.stamp === stampOf(before)) return known.sha256;
  const sha256 = sha256Of(readFileSync(realPath));
  const after = statSync(realPath, { bigint: true });
  const settled = stampOf(after) === stampOf(before) && Number(after.ctimeNs / 1_000_000n) < Date.now() - 1_000;
  if (settled) hashed.set(realPath, { stamp: stampOf(after), sha256 });
  else hashed.delete(realPath);
  return sha256;
}

const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
