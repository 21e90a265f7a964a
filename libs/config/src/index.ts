export * from './env';
export * from './load-env';
