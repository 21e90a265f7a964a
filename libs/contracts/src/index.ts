export * from './pipeline-params';
export { grid } from './pipelines/grid';
export { RB_SQL_MAX_CORRECTIONS, RB_SQL_MAX_SHOTS } from './pipelines/rb-sql';
export * from './sweep-config';
export * from './variants';
export * from './stages';
export * from './api';
export { mulberry32 } from './prng';
export type { LlmCacheUsage, LlmCachedResponse, LlmCacheEntry } from './llm-cache';
