import type { TimedExecutionResult } from './execution-result';

export interface ChildLimits {
  maxRows: number;
  maxResultBytes: number;
  maxSqlLength: number;
  heapMb: number;
}

export interface ChildRequest {
  id: number;
  dbPath: string;
  sql: string;
  repeat: number;
}

export type ChildMessage = { type: 'ready' } | { type: 'result'; id: number; result: TimedExecutionResult };
