import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { expandVariants, SweepConfigError, type SweepConfig, type VariantSpec } from '@sqlsweep/contracts';
import { sha256File } from '@sqlsweep/datasets';
import { corpusDir, fileKnobsRead, pipelines, resolveKnobPath } from '@sqlsweep/pipelines';

/**
 * Hashes the files a sweep's variants read through file knobs (R3's RAG corpus), each file once per plan, so their
 * content enters the stage keys. A path outside the corpus directory (absolute, with `..`, or a link out), or a
 * missing or unreadable file, is a SweepConfigError naming the knob in the config.
 */
export class FileKnobHasher {
  private readonly hashes = new Map<string, Promise<string>>();
  private readonly dir: string;

  /** `dir`: the corpus directory; default this process's (SQLSWEEP_CORPUS_DIR, else `data`). */
  constructor(private readonly config: SweepConfig, private readonly source: string, dir?: string) {
    this.dir = dir === undefined ? corpusDir() : resolve(dir);
  }

  /** The variant's `KeyingContext.fileHashes`: by derived parameter, only for knobs a stage of its graph reads. */
  async hashesFor(variant: VariantSpec): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const file of fileKnobsRead(pipelines[variant.pipeline], variant)) {
      const path = resolve(this.dir, file.path);
      let hash = this.hashes.get(path);
      if (!hash) {
        hash = hashFile(file.path, this.dir);
        this.hashes.set(path, hash);
      }
      try {
        out[file.sha256Param] = await hash;
      } catch (e) {
        throw new SweepConfigError(this.source, `pipelines[${this.entryOf(variant)}].grid.${file.knob}`, `cannot read ${file.description} at ${path}: ${(e as Error).message}`);
      }
    }
    return out;
  }

  /** The index of the first pipeline entry that yields this variant. */
  private entryOf(variant: VariantSpec): number {
    return this.config.pipelines.findIndex((entry) => expandVariants({ ...this.config, pipelines: [entry] }).some((v) => v.key === variant.key));
  }
}

/** Hashes the real file the knob names in the corpus directory: a link is checked once and then not followed again. */
async function hashFile(knobPath: string, dir: string): Promise<string> {
  const real = resolveKnobPath(knobPath, dir);
  const info = await stat(real);
  if (!info.isFile()) throw new Error('not a regular file');
  return sha256File(real);
}
