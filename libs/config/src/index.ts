export * from './env';
export * from './load-env';
export * from './module-worker';
