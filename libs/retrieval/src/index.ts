export { RetrievalError, type RetrievalErrorCode } from './errors';
export { maxSim, maxSimAt, nonZeroRows, type TokenMatrix } from './token-matrix';
export { encoderConfigSchema, readEncoderConfig, type EncoderConfig, type EncoderConfigInput } from './encoder/encoder-config';
export { openEncoder, encoderFingerprint, type Encoder, type EncoderLogger, type OpenEncoderOptions } from './encoder/encoder';
export type { ExecutionProviderName } from './encoder/encoder-protocol';
export type { TextRole } from './encoder/colbert-tokenization';
export {
  buildBundledEncoder,
  BUNDLED_ENCODER_NAME,
  BUNDLED_ENCODER_VERSION,
  type BuildBundledEncoderOptions,
  type BuildBundledEncoderResult,
} from './encoder/bundled/build-bundled-encoder';
export { configuredEncoderDir } from './encoder/configured-encoder-dir';
export type { DocumentKind, IndexedDocument, MultiVectorIndex, PayloadValue, RetrievalDocument, ScoredDocument, SearchFilter, SearchOptions } from './index/types';
export { EmbeddedMultiVectorIndex } from './index/embedded-index';
export { QdrantMultiVectorIndex, qdrantCollectionName, type QdrantIndexOptions } from './index/qdrant-index';
export {
  buildIndex,
  indexKey,
  openIndex,
  readIndexManifest,
  INDEX_FORMAT_VERSION,
  type BuildIndexDeps,
  type BuildIndexResult,
  type IndexManifest,
  type IndexSpec,
} from './index/build-index';
export { listIndexes, type IndexListing } from './index/index-catalog';
export {
  DOCUMENT_BUILDER_VERSION,
  tableText,
  columnText,
  tableDocumentId,
  columnDocumentId,
  tableDocuments,
  columnDocuments,
  sqlSkeletonDocuments,
  questionSkeletonDocuments,
  ragChunkDocuments,
  type TrainingPair,
  type QuestionSkeletonEntry,
  type CorpusText,
} from './documents/builders';
export { cachedChunks } from './documents/chunk-cache';
export {
  TableRetriever,
  type SchemaIndexes,
  type RetrievedTableSet,
  type ScoredTable,
  type TableRetrieverOptions,
} from './retrievers/table-retriever';
export { buildSchemaIndexes, type SchemaIndexBuild } from './retrievers/schema-indexes';
export { goldTablesOf, type GoldTables } from './eval/gold-tables';
export {
  evaluateTableRetrieval,
  type TableRetrievalEvalOptions,
  type EvalDataset,
  type TableRetrievalEvalReport,
  type RetrievalOperatingPoint,
} from './eval/table-retrieval-eval';
/** Test helper for any package's tests: builds the bundled encoder once per machine in a tmp directory. */
export { ensureBundledEncoderForTests } from './testing/test-encoder';
export type { EmbeddedIndexOptions } from './index/embedded-index';
export { openMaxSimScorer, type MaxSimScorer, type MaxSimScorerOptions, type RegisteredCorpus } from './index/maxsim-scorer';
export { buildQdrantIndex, type BuildQdrantIndexDeps, type BuildQdrantIndexResult } from './index/build-qdrant-index';
export { trainProjection, type TrainProjectionOptions, type TrainProjectionResult } from './training/train-projection';
export { wordnetNounGlossCorpus, type WordnetSources } from './documents/wordnet-glosses';
