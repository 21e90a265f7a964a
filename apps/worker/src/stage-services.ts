import { join } from 'node:path';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import type { DatasetRepository } from '@sqlsweep/db';
import type { DatasetServices, RetrievalServices, StageItem } from '@sqlsweep/pipelines';

type IndexSpec = Parameters<RetrievalServices['index']>[0];
import {
  buildIndex, cachedChunks, configuredEncoderDir, openEncoder, openIndex, openMaxSimScorer, type Encoder, type EncoderLogger, type MaxSimScorer, type MultiVectorIndex, type RetrievalDocument,
} from '@sqlsweep/retrieval';

/**
 * Retrieval for stages: one encoder per worker (opened on first use; the bundled one is built if missing), and
 * indexes built once per content hash on disk, then opened from there by every later stage and worker. Searches over
 * large corpora (an R3 RAG corpus: thousands of documents, hundreds of thousands of token rows) are scored by one
 * onnxruntime MaxSim thread per worker, started on the first such search: the same exact MaxSim as the scalar kernel,
 * vectorised and off the event loop, where the scalar kernel took most of a sweep's worker CPU (bench/sweep).
 */
export class WorkerRetrieval implements RetrievalServices {
  private encoderPromise?: Promise<Encoder>;
  private scorerPromise?: Promise<MaxSimScorer>;
  /** Opens the scorer thread on the first corpus registered with it (a search over `scorerMinRows` token rows or more). */
  private readonly scorer: MaxSimScorer = {
    register: async (dim, documents) => {
      this.scorerPromise ??= openMaxSimScorer({ intraOpNumThreads: 1 });
      return (await this.scorerPromise).register(dim, documents);
    },
    close: async () => undefined,
  };
  private readonly indexes = new Map<string, Promise<MultiVectorIndex>>();
  /** Indexes by the documents array a stage handed in, then by the rest of its spec. */
  private readonly byDocuments = new WeakMap<object, Map<string, Promise<MultiVectorIndex>>>();

  constructor(private readonly opts: { dataDir: string; encoderDir?: string; intraOpNumThreads?: number; logger: EncoderLogger }) {}

  encoder(): Promise<Encoder> {
    this.encoderPromise ??= (async () => {
      const modelDir = configuredEncoderDir({ dataDir: this.opts.dataDir, encoderDir: this.opts.encoderDir });
      return openEncoder({ modelDir, intraOpNumThreads: this.opts.intraOpNumThreads ?? 1, logger: this.opts.logger });
    })();
    return this.encoderPromise;
  }

  /**
   * The index of `spec`'s documents. A stage that hands in the very same documents array again (a corpus its module
   * keeps per process: R3's RAG chunks, RB-SQL's skeletons) gets the index it got before without the key being hashed
   * again over every document, which cost an R3 stage more than its search.
   */
  async index(spec: IndexSpec): Promise<MultiVectorIndex> {
    let byHeader = this.byDocuments.get(spec.documents);
    if (!byHeader) this.byDocuments.set(spec.documents, (byHeader = new Map()));
    const header = JSON.stringify([spec.kind, spec.datasetVersion, spec.dbId, spec.builderVersion]);
    let index = byHeader.get(header);
    if (!index) {
      const seen = byHeader;
      index = this.buildOrOpen(spec);
      seen.set(header, index);
      index.catch(() => seen.delete(header));
    }
    return index;
  }

  /** Kept in the data directory's `corpus-chunks`, beside its indexes, for every worker of the host. */
  chunks(key: string, chunk: () => RetrievalDocument[]): Promise<RetrievalDocument[]> {
    return cachedChunks(join(this.opts.dataDir, 'corpus-chunks'), key, chunk);
  }

  private async buildOrOpen(spec: IndexSpec): Promise<MultiVectorIndex> {
    const encoder = await this.encoder();
    const indexRoot = join(this.opts.dataDir, 'indexes');
    const built = await buildIndex(spec, { encoder, indexRoot });
    let index = this.indexes.get(built.key);
    if (!index) {
      const opening = openIndex(indexRoot, built.key, { scorer: this.scorer }).then((opened) => opened.index);
      this.indexes.set(built.key, (index = opening));
      opening.catch(() => this.indexes.delete(built.key)); // a later stage opens it again
    }
    return index;
  }

  async close(): Promise<void> {
    if (this.encoderPromise) await (await this.encoderPromise).close();
    if (this.scorerPromise) await (await this.scorerPromise).close();
  }
}

/** The rest of a dataset version, loaded from Postgres once per worker. */
export class WorkerDataset implements DatasetServices {
  private train?: Promise<StageItem[]>;
  private readonly schemas = new Map<string, Promise<DatabaseSchema>>();

  constructor(private readonly repo: DatasetRepository, private readonly versionId: number) {}

  trainItems(): Promise<StageItem[]> {
    this.train ??= this.repo.listItems(this.versionId, { split: 'train' });
    return this.train;
  }

  schema(dbId: string): Promise<DatabaseSchema> {
    let s = this.schemas.get(dbId);
    if (!s) {
      s = this.repo.getDatabase(this.versionId, dbId).then((row) => {
        if (!row) throw new Error(`dataset version ${this.versionId} has no database ${dbId}`);
        return row.schema as DatabaseSchema;
      });
      this.schemas.set(dbId, s);
    }
    return s;
  }
}
