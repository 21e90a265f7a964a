import { stat } from 'node:fs/promises';
import { expandVariants, SweepConfigError, type SweepConfig, type VariantSpec } from '@sqlsweep/contracts';
import { sha256File } from '@sqlsweep/datasets';
import { fileKnobsRead, pipelines, resolveKnobPath } from '@sqlsweep/pipelines';

/**
 * Hashes the files a sweep's variants read through file knobs (R3's RAG corpus), each file once per plan, so their
 * content enters the stage keys. A missing or unreadable file is a SweepConfigError naming the knob in the config.
 */
export class FileKnobHasher {
  private readonly hashes = new Map<string, Promise<string>>();

  constructor(private readonly config: SweepConfig, private readonly source: string) {}

  /** The variant's `KeyingContext.fileHashes`: by derived parameter, only for knobs a stage of its graph reads. */
  async hashesFor(variant: VariantSpec): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const file of fileKnobsRead(pipelines[variant.pipeline], variant)) {
      const path = resolveKnobPath(file.path);
      let hash = this.hashes.get(path);
      if (!hash) {
        hash = hashFile(path);
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

async function hashFile(path: string): Promise<string> {
  const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
    throw new Error(e.code === 'ENOENT' ? `no such file (relative paths start from the working directory, ${process.cwd()})` : e.message);
  });
  if (!info.isFile()) throw new Error('not a regular file');
  return sha256File(path);
}
