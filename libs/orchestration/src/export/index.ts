export * from './prediction-files';
export * from './result-tables';
