export { questionSkeleton, schemaVocabulary, SKELETON_MASK, type SchemaNames } from './question-skeleton';
export { PooledIndex, pooledIndexFor, type PooledDocument, type PooledHit } from './pooled-index';
