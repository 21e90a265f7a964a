export * from './pipeline-params';
export * from './sweep-config';
export * from './variants';
export * from './stages';
export * from './api';
