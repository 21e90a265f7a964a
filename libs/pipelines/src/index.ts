export * from './pipeline';
export * from './stage-keys';
export * from './stage-context';
export * from './template';
export * from './parse-sql';
export * from './registry';
export type { EvaluateOutput, GeneratedSql } from './stages/common';
export { parseGeneratedSql } from './stages/zero-shot';
