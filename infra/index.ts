/**
 * What the other rooms use of infra: `ensureServices` (set-up and the test runs) and private Redis/Postgres servers
 * that the fault tests and the chaos bench start, stop and restart.
 * Worker hosts as network namespaces (netns/): the hosts benchmark and its e2e test.
 */
export * from './services';
export * from './services/binaries';
export { aptInstall, canUseApt } from './services/apt';
export { postgresUrlFor, startPrivatePostgres, stopPrivatePostgres, type PrivatePostgres } from './services/private-postgres';
export { redisUrlFor, startPrivateRedis, stopPrivateRedis, type PrivateRedis } from './services/private-redis';
export { findFreePort } from './services/server-state';
export { startPrivateSentinelGroup, PrivateSentinelGroup, type StartPrivateSentinelOptions } from './services/private-sentinel';
export { findRedisBinaries, type RedisProcess } from './services/redis-process';
export { startPrivateCluster, PrivateCluster, type StartPrivateClusterOptions } from './services/private-cluster';
export * from './netns';
