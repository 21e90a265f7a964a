export * from './job-catalog';
export * from './connection';
export * from './queue-client';
export * from './worker-host';
export * from './final-failure';
export * from './redis-lease';
export { DelayedError, UnrecoverableError, RateLimitError, Worker, Queue, type Job } from 'bullmq';
