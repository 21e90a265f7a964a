export * from './stage-runner';
