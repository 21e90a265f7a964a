import { createHash } from 'node:crypto';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import { DOCUMENT_BUILDER_VERSION, sqlSkeletonDocuments, type RetrievalDocument } from '@sqlsweep/retrieval';
import { stagesOf } from '../../define-stage';
import type { StageContext, StageItem } from '../../stage-context';
import { sqlSkeleton } from '../../sql/skeleton';
import type { SelectedShots, Shot } from './types';

/** Skeleton documents of a dataset version's train split, computed once per worker and version. */
const skeletonCorpora = new Map<string, Promise<{ documents: RetrievalDocument[]; byId: Map<string, StageItem> }>>();

async function skeletonCorpus(ctx: Pick<StageContext, 'datasetVersion' | 'services'>): Promise<{ documents: RetrievalDocument[]; byId: Map<string, StageItem> }> {
  let corpus = skeletonCorpora.get(ctx.datasetVersion);
  if (!corpus) {
    corpus = (async () => {
      const train = await ctx.services.dataset.trainItems();
      const schemas = new Map<string, DatabaseSchema>();
      for (const dbId of new Set(train.map((t) => t.dbId))) schemas.set(dbId, await ctx.services.dataset.schema(dbId));
      const pairs = train.map((t) => ({ itemId: t.itemId, dbId: t.dbId, question: t.question, sql: t.goldSql }));
      return { documents: sqlSkeletonDocuments(pairs, (sql, dbId) => sqlSkeleton(sql, schemas.get(dbId))), byId: new Map(train.map((t) => [t.itemId, t])) };
    })();
    corpus.catch(() => skeletonCorpora.delete(ctx.datasetVersion));
    skeletonCorpora.set(ctx.datasetVersion, corpus);
  }
  return corpus;
}

function toShot(item: StageItem, skeleton: string, score?: number): Shot {
  return { itemId: item.itemId, dbId: item.dbId, question: item.question, evidence: item.evidence, sql: item.goldSql, skeleton, ...(score === undefined ? {} : { score }) };
}

/** A deterministic shuffle key: the same (item, sample, candidate) always sorts the same way. */
function shuffleKey(seed: string, id: string): string {
  return createHash('sha256').update(`${seed}\u0000${id}`).digest('hex');
}

/**
 * SQL-Skeleton-Retriever (RB-SQL 4.3): the top-k training skeletons by S(q, sk), through one index of every training
 * SQL's skeleton (built once per dataset version and encoder). Ablations: `random` (k random training items, seeded
 * by item and sample index) and `fixed` (the same first k training items, by id, for every question). Only `random`
 * depends on the sample index: the graph leaves it out of the other selections' keys.
 */
export const selectShotsStage = stagesOf('rb-sql').compute({
  name: 'rb-sql.shots', role: 'retrieval', version: 1, reads: ['shots', 'shotSelection', 'sampleIndex'],
  run: async (ctx) => {
    const { shots: k, shotSelection: selection } = ctx.params;
    const { documents, byId } = await skeletonCorpus(ctx);
    const candidates = documents.filter((d) => d.payload.itemId !== ctx.item.itemId);
    const skeletonOf = new Map(documents.map((d) => [String(d.payload.itemId), d.text]));
    let shots: Shot[];
    if (selection === 'skeleton') {
      const index = await ctx.services.retrieval.index({ datasetVersion: ctx.datasetVersion, dbId: null, kind: 'sql-skeleton', builderVersion: DOCUMENT_BUILDER_VERSION, documents });
      const encoder = await ctx.services.retrieval.encoder();
      const [query] = await encoder.encodeQueries([ctx.item.question]);
      const found = await index.search(query, { topK: k + 1 });
      shots = found.filter((d) => d.payload.itemId !== ctx.item.itemId).slice(0, k)
        .map((d) => toShot(byId.get(String(d.payload.itemId))!, d.text, d.score));
    } else {
      const ordered = selection === 'fixed'
        ? [...candidates].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        : [...candidates].sort((a, b) => {
          const seed = `${ctx.item.itemId}:${ctx.params.sampleIndex}`;
          const ka = shuffleKey(seed, a.id);
          const kb = shuffleKey(seed, b.id);
          return ka < kb ? -1 : ka > kb ? 1 : 0;
        });
      shots = ordered.slice(0, k).map((d) => toShot(byId.get(String(d.payload.itemId))!, skeletonOf.get(String(d.payload.itemId))!));
    }
    if (shots.length < k) throw new Error(`rb-sql.shots: asked for ${k} shots, the train split has only ${shots.length} candidates`);
    const output: SelectedShots = { selection, shots };
    return { output };
  },
});
