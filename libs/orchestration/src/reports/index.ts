// The read model: every report the CLI and the API show (leaderboards, item results, comparisons, parameter
// sweeps, exports), built here from ReportRepository so that both show the same numbers.
export * from './query-error';
export * from './views';
export * from './verdict-category';
export * from './leaderboard';
export * from './run-cost';
export * from './item-detail';
export * from './comparison';
export * from './pareto';
export * from './param-sweep';
export * from './export-run';
export * from './matrix';
