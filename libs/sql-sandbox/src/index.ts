export type { SqlValue, SqlValueType } from './sql-value';
export { encodeSqlValue, sqlValueKey, sqlValueType, pythonSortKey, pyFloatRepr } from './sql-value';
export type { ExecutionResult, ExecuteRequest, TimedExecutionResult } from './execution-result';
export { SandboxPool, type SandboxPoolOptions, type SharedExecutions } from './sandbox-pool';
export { executionKey } from './result-memo';
export { gateSqlText, gateStatement } from './statement-gate';
export { prepareWithDqsFallback } from './dqs-fallback';
export { lexSql, type SqlToken, type SqlTokenKind } from './sql-lexer';
export {
  spiderPrepare,
  spiderPrepareGold,
  spiderOrderMatters,
  removeDistinct,
  firstStatement,
  normaliseSpiderOperators,
  replaceCurrentYear,
} from './spider-prepare';
export { compareExecution, type ComparisonVerdict, type EvalSemantics, type BirdRowSemantics } from './compare-execution';
export { GoldCache, type GoldCacheEntry, type GoldResultStore } from './gold-cache';
export { machineInfo, machineLabel, type MachineInfo } from './machine';
export { readGoldFile, readSpiderPredictions, readBirdPredictions, birdKeysOutOfPlace, type GoldLine } from './eval-files';
export { evaluateExecution, evaluateGold, isEmptyStatement, timeGold, officialSql, runPrediction, judgePrediction, type PredictionRun, type PredictionRequest, type EvaluateGoldOptions, type EvalItem, type ItemVerdict, type EvaluateExecutionOptions } from './evaluate-execution';
export { vesReward, vesScore } from './ves';
export { timeForVes, type VesTimingOptions, type VesTimings } from './ves-timing';
export { softF1, SOFT_F1_VERSIONS, type SoftF1Version, type SoftF1Result } from './soft-f1';
export { spiderSummaryTable, birdSummaryTable, breakdown, type BreakdownRow } from './summary-table';
export { SCORERS, defaultScorer, findScorer, sweepScorer, type Scorer, type ScorerMetric } from './scorers';
export { executeOnScratchCopy, refusedAsWrite } from './scratch-write';
export { CONFORMANCE_CASES, BIRD_EMPTY_CASES, type ConformanceCase } from './conformance/cases';
export { makeConformanceDatabases } from './conformance/make-databases';
