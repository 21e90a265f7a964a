export * from './planner';
export * from './admission';
export * from './advancer';
export * from './register-dataset';
export * from './core';
export * from './compare';
export * from './schedules';
export * from './export';
