export * from './test-database';
export * from './test-queues';
export * from './model-run';
export * from './hostile-sweeps';
