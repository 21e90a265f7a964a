import { createHash } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { sha256File } from './hash-files';
import { forgetVerified, rememberVerified, replicaPathOf, tempPathBeside, verifiedState } from './replicas';

/** Where dataset files are stored by content (Postgres's dataset_files in practice: see DatasetFileStore). */
export interface DatasetFileSource {
  isStored(sha256: string): Promise<boolean>;
  /** The file's bytes in order; throws when it is not stored. */
  chunks(sha256: string): AsyncIterable<Buffer>;
}

/** The database a job needs: which version it belongs to and the file it was registered from, for messages. */
export interface ReplicaRequest {
  dbId: string;
  sha256: string;
  /** `name@hash12` of the dataset version. */
  version: string;
  /** The database's path inside the registered dataset folder. */
  file: string;
  /** What re-registering the version takes (for the message when its files are not stored). */
  registerHint: string;
}

/** The command that registers a version again (and so stores its files): the folder it was registered from, quoted if need be. */
export function registerCommandFor(v: { datasetName: string; format: string; sourcePath?: string }): string {
  const quote = (x: string) => (/^[\w@%+=:,./-]+$/.test(x) ? x : `'${x.replace(/'/g, `'\\''`)}'`);
  return `sqlsweep datasets add ${quote(v.datasetName)} --format ${v.format} --path ${v.sourcePath ? quote(v.sourcePath) : '<its folder>'}`;
}

/** A replica this process verified and handed out was deleted since: the next attempt fetches it again. */
export class ReplicaMissingError extends Error {
  constructor(readonly path: string, r: ReplicaRequest) {
    super(`replica ${path} (database ${r.dbId} of ${r.version}) was deleted after this worker verified it; the next attempt `
      + 'fetches it again from the dataset store (if this repeats, something is removing files under SQLSWEEP_DATA_DIR)');
    this.name = 'ReplicaMissingError';
  }
}

/** A replica on disk whose bytes are not the ones its name promises: refused, never used or overwritten. */
export class ReplicaChecksumError extends Error {
  constructor(readonly path: string, r: ReplicaRequest, actual: string) {
    super(`replica ${path} (database ${r.dbId} of ${r.version}) fails its checksum (sha256 ${actual.slice(0, 12)}, expected `
      + `${r.sha256.slice(0, 12)}): it was changed after it was made; delete it and the next job fetches a fresh copy from the dataset store`);
    this.name = 'ReplicaChecksumError';
  }
}

/** The store does not hold a file a version names (registered before files were stored, or removed by hand). */
export class DatasetFileNotStoredError extends Error {
  constructor(r: ReplicaRequest) {
    super(`dataset version ${r.version}: database ${r.dbId} (${r.file}, sha256 ${r.sha256.slice(0, 12)}) is not in the dataset store; `
      + `store it by registering the dataset again (${r.registerHint}), then run the sweep again`);
    this.name = 'DatasetFileNotStoredError';
  }
}

/**
 * Makes the replicas a worker needs in its own data directory on first use, from the dataset store: written to a
 * temporary file, checked against the sha256 while written, made read-only and renamed into place. Replicas
 * already there are verified once per process and reused.
 */
export class ReplicaMaterializer {
  private readonly fetching = new Map<string, Promise<string>>();

  constructor(private readonly opts: { dataDir: string; store: DatasetFileSource }) {}

  async replica(r: ReplicaRequest): Promise<string> {
    const path = replicaPathOf(this.opts.dataDir, r.sha256);
    const state = await verifiedState(path);
    if (state === 'verified') return path;
    if (state === 'vanished') {
      forgetVerified(path);
      throw new ReplicaMissingError(path, r);
    }
    let p = this.fetching.get(path);
    if (!p) {
      p = this.verifyOrFetch(path, r).finally(() => this.fetching.delete(path));
      this.fetching.set(path, p);
    }
    return p;
  }

  private async verifyOrFetch(path: string, r: ReplicaRequest): Promise<string> {
    if (existsSync(path)) {
      const actual = await sha256File(path);
      if (actual !== r.sha256) throw new ReplicaChecksumError(path, r, actual);
    } else {
      if (!(await this.opts.store.isStored(r.sha256))) throw new DatasetFileNotStoredError(r);
      await this.fetch(path, r);
    }
    await rememberVerified(path);
    return path;
  }

  private async fetch(path: string, r: ReplicaRequest): Promise<void> {
    await mkdir(join(path, '..'), { recursive: true });
    const tmp = tempPathBeside(path);
    const hash = createHash('sha256');
    const out = createWriteStream(tmp, { mode: 0o600 });
    try {
      for await (const chunk of this.opts.store.chunks(r.sha256)) {
        hash.update(chunk);
        if (!out.write(chunk)) await once(out, 'drain');
      }
      out.end();
      await once(out, 'finish');
      const actual = hash.digest('hex');
      if (actual !== r.sha256) throw new Error(`dataset store: file ${r.sha256.slice(0, 12)} (${r.file} of ${r.version}) reads back as sha256 ${actual.slice(0, 12)}; register the dataset again (${r.registerHint})`);
      await chmod(tmp, 0o444);
      await rename(tmp, path);
    } catch (e) {
      out.destroy();
      await rm(tmp, { force: true });
      throw e;
    }
  }
}
