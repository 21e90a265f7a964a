export * from './planner';
export * from './advancer';
export * from './register-dataset';
export * from './core';
