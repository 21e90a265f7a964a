export * from './schedules-file';
export * from './scheduler-reconciler';
export * from './schedule-firer';
export * from './regression-checker';
export * from './schedule-service';
export * from './regression-detail';
