export * from './env';
export * from './load-env';
export * from './module-worker';
export * from './redis-address';
export * from './throttled-warnings';
export * from './lru-cache';
