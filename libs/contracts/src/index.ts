export * from './pipeline-params';
export { grid } from './pipelines/grid';
export * from './sweep-config';
export * from './variants';
export * from './stages';
export * from './api';
export { mulberry32 } from './prng';
