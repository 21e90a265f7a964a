export const ORCHESTRATOR_ENV = Symbol('ORCHESTRATOR_ENV');
export const ORCHESTRATOR_CORE = Symbol('ORCHESTRATOR_CORE');
export const REPORTS = Symbol('REPORTS');
export const API_METRICS = Symbol('API_METRICS');
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');
export const RESULT_TABLES = Symbol('RESULT_TABLES');
export const PLAN_THREAD = Symbol('PLAN_THREAD');
