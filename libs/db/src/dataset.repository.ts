import { sql } from 'kysely';
import type { Db } from './connection';
import { PostgresDatasetFileStore, type DatasetFileStore } from './dataset-file-store';
import type { GoldFlag } from './schema';

export interface NewDatasetItem {
  itemId: string; split: 'train' | 'dev'; dbId: string; question: string; evidence?: string; goldSql: string;
  difficulty?: string; hardness?: string;
  /** Set when the gold query cannot be scored against; the item is stored but left out of sweeps. */
  goldFlag?: { flag: GoldFlag; reason: string };
}
export interface FlaggedItem { itemId: string; split: 'train' | 'dev'; flag: GoldFlag; reason: string }
/** `replicaPath`: the database's path inside the dataset folder (workers make their replicas by `checksum`). */
export interface NewDatasetDatabase { dbId: string; replicaPath: string; checksum: string; schema: unknown }
/** A file of the version, stored by content in the dataset store (see DatasetFileStore). */
export interface NewDatasetFile { path: string; sha256: string; size: number }
export interface DatasetVersion { id: number; datasetName: string; contentHash: string; format: 'spider' | 'bird' | 'minibench'; sourcePath: string; itemCount: number }
export interface StoredItem { itemId: string; split: 'train' | 'dev'; dbId: string; question: string; evidence: string | null; goldSql: string; difficulty: string | null; hardness: string | null }
export interface ItemFilter { split: 'train' | 'dev'; ids?: string[]; dbIds?: string[]; difficulty?: string[]; offset?: number; limit?: number }

export class DatasetRepository {
  /** The versions' files, stored by content. */
  readonly files: DatasetFileStore;

  /** `files`: where the bytes are (createDatasetFileStore from the configuration); default Postgres. */
  constructor(private readonly db: Db, files?: DatasetFileStore) {
    this.files = files ?? new PostgresDatasetFileStore(db);
  }

  /**
   * Registers a dataset version once per content hash; a second call with the same hash returns the first. The
   * version's files (already in the dataset store) are recorded either way, so a version registered before files
   * were stored gets them when registered again.
   */
  async registerVersion(input: {
    name: string; format: DatasetVersion['format']; contentHash: string; sourcePath: string;
    items: NewDatasetItem[]; databases: NewDatasetDatabase[]; files: NewDatasetFile[];
  }): Promise<{ version: DatasetVersion; created: boolean }> {
    return this.db.transaction().execute(async (tx) => {
      await tx.insertInto('datasets').values({ name: input.name }).onConflict((c) => c.column('name').doNothing()).execute();
      const dataset = await tx.selectFrom('datasets').select('id').where('name', '=', input.name).executeTakeFirstOrThrow();
      const inserted = await tx
        .insertInto('dataset_versions')
        .values({ dataset_id: dataset.id, content_hash: input.contentHash, format: input.format, source_path: input.sourcePath, item_count: input.items.length })
        .onConflict((c) => c.columns(['dataset_id', 'content_hash']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted) {
        for (let i = 0; i < input.items.length; i += 1000) {
          await tx.insertInto('dataset_items').values(
            input.items.slice(i, i + 1000).map((it, j) => ({
              version_id: inserted.id, item_id: it.itemId, position: i + j, split: it.split, db_id: it.dbId,
              question: it.question, evidence: it.evidence ?? null, gold_sql: it.goldSql,
              difficulty: it.difficulty ?? null, hardness: it.hardness ?? null,
              gold_flag: it.goldFlag?.flag ?? null, gold_flag_reason: it.goldFlag?.reason ?? null,
            })),
          ).execute();
        }
        if (input.databases.length > 0) {
          await tx.insertInto('dataset_databases').values(
            input.databases.map((d) => ({ version_id: inserted.id, db_id: d.dbId, replica_path: d.replicaPath, checksum: d.checksum, schema: JSON.stringify(d.schema) })),
          ).execute();
        }
      }
      const version = await this.versionQuery(tx).where('v.dataset_id', '=', dataset.id).where('v.content_hash', '=', input.contentHash).executeTakeFirstOrThrow();
      for (let i = 0; i < input.files.length; i += 1000) {
        await tx.insertInto('dataset_version_files')
          .values(input.files.slice(i, i + 1000).map((f) => ({ version_id: version.id, path: f.path, sha256: f.sha256, size: f.size })))
          .onConflict((c) => c.columns(['version_id', 'path']).doNothing()).execute();
      }
      return { version, created: inserted !== undefined };
    });
  }

  private versionQuery(db: Db) {
    return db
      .selectFrom('dataset_versions as v')
      .innerJoin('datasets as d', 'd.id', 'v.dataset_id')
      .select(['v.id', 'd.name as datasetName', 'v.content_hash as contentHash', 'v.format', 'v.source_path as sourcePath', 'v.item_count as itemCount']);
  }

  /** The newest version of a dataset, or the one whose hash starts with `hashPrefix`. */
  async findVersion(name: string, hashPrefix?: string): Promise<DatasetVersion | undefined> {
    let q = this.versionQuery(this.db).where('d.name', '=', name);
    if (hashPrefix) q = q.where('v.content_hash', 'like', `${hashPrefix}%`);
    return q.orderBy('v.id', 'desc').limit(1).executeTakeFirst();
  }

  async getVersion(id: number): Promise<DatasetVersion> {
    return this.versionQuery(this.db).where('v.id', '=', id).executeTakeFirstOrThrow();
  }

  async listVersions(): Promise<DatasetVersion[]> {
    return this.versionQuery(this.db).orderBy('d.name').orderBy('v.id').execute();
  }

  /** The items sweeps use: items whose gold is flagged are never listed (see `listGoldFlags`). */
  async listItems(versionId: number, filter: ItemFilter): Promise<StoredItem[]> {
    let q = this.itemQuery().where('version_id', '=', versionId).where('split', '=', filter.split).where('gold_flag', 'is', null);
    if (filter.ids) q = q.where('item_id', 'in', filter.ids.length ? filter.ids : ['']);
    if (filter.dbIds) q = q.where('db_id', 'in', filter.dbIds.length ? filter.dbIds : ['']);
    if (filter.difficulty) q = q.where('difficulty', 'in', filter.difficulty.length ? filter.difficulty : ['']);
    q = q.orderBy('position').offset(filter.offset ?? 0);
    if (filter.limit !== undefined) q = q.limit(filter.limit);
    return q.execute();
  }

  async getItem(versionId: number, itemId: string): Promise<StoredItem | undefined> {
    return this.itemQuery().where('version_id', '=', versionId).where('item_id', '=', itemId).executeTakeFirst();
  }

  private itemQuery() {
    return this.db.selectFrom('dataset_items').select([
      'item_id as itemId', 'split', 'db_id as dbId', 'question', 'evidence', 'gold_sql as goldSql', 'difficulty', 'hardness',
    ]);
  }

  async getDatabase(versionId: number, dbId: string): Promise<{ replicaPath: string; checksum: string; schema: unknown } | undefined> {
    return this.db
      .selectFrom('dataset_databases')
      .select(['replica_path as replicaPath', 'checksum', 'schema'])
      .where('version_id', '=', versionId)
      .where('db_id', '=', dbId)
      .executeTakeFirst();
  }

  async listDatabases(versionId: number): Promise<Array<{ dbId: string; replicaPath: string }>> {
    return this.db.selectFrom('dataset_databases').select(['db_id as dbId', 'replica_path as replicaPath'])
      .where('version_id', '=', versionId).orderBy('db_id').execute();
  }

  /** Items whose gold query `datasets add` flagged, in dataset order. */
  async listGoldFlags(versionId: number): Promise<FlaggedItem[]> {
    const rows = await this.db.selectFrom('dataset_items').select(['item_id as itemId', 'split', 'gold_flag as flag', 'gold_flag_reason as reason'])
      .where('version_id', '=', versionId).where('gold_flag', 'is not', null).orderBy('position').execute();
    return rows.map((r) => ({ itemId: r.itemId, split: r.split, flag: r.flag!, reason: r.reason ?? '' }));
  }

  /** Items per split that sweeps can use (gold-flagged ones left out, as `listItems` does). */
  async countItems(versionId: number): Promise<Record<string, number>> {
    const rows = await this.db.selectFrom('dataset_items').select(['split', sql<number>`count(*)`.as('n')])
      .where('version_id', '=', versionId).where('gold_flag', 'is', null).groupBy('split').execute();
    return Object.fromEntries(rows.map((r) => [r.split, Number(r.n)]));
  }

  /** Every version with its database count and registration time, as the catalog lists them. */
  async versionCatalog() {
    const { rows } = await sql<{ id: number; datasetName: string; contentHash: string; format: 'spider' | 'bird' | 'minibench'; sourcePath: string; itemCount: number; databases: number; createdAt: Date }>`
      SELECT v.id, d.name AS "datasetName", v.content_hash AS "contentHash", v.format, v.source_path AS "sourcePath",
        v.item_count AS "itemCount", (SELECT count(*)::int FROM dataset_databases dd WHERE dd.version_id = v.id) AS databases,
        v.created_at AS "createdAt"
      FROM dataset_versions v JOIN datasets d ON d.id = v.dataset_id ORDER BY d.name, v.id`.execute(this.db);
    return rows;
  }

  async versionExists(versionId: number): Promise<boolean> {
    return (await this.db.selectFrom('dataset_versions').select('id').where('id', '=', versionId).executeTakeFirst()) !== undefined;
  }

  /** One page of a split in dataset order, gold-flagged items included (the catalog shows everything registered). */
  async itemPage(versionId: number, split: 'train' | 'dev', limit: number, offset: number) {
    const base = this.db.selectFrom('dataset_items').where('version_id', '=', versionId).where('split', '=', split);
    const [items, total] = await Promise.all([
      base.select(['item_id as itemId', 'split', 'db_id as dbId', 'question', 'evidence', 'gold_sql as goldSql', 'difficulty', 'hardness'])
        .orderBy('position').limit(limit).offset(offset).execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: total.n };
  }
}
