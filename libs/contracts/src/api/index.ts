export * from './common';
export * from './datasets';
export * from './runs';
export * from './results';
export * from './compare';
export * from './exports';
export * from './routes';
export * from './models';
