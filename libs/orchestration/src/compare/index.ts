export * from './statistics';
