export * from './connection';
export * from './schema';
export * from './migrator';
export * from './dataset.repository';
export * from './stage.repository';
export * from './run.repository';
export * from './llm-cache.repository';
export * from './schedule.repository';
