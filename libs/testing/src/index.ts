export * from './test-database';
export * from './test-queues';
export * from './test-core';
export * from './model-run';
export * from './hostile-sweeps';
export * from './e2e-processes';
export * from './e2e-wait';
export * from './stored-fingerprint';
