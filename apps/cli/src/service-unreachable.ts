// Apart from ./service-outages (which loads the queue library) so that the CLI's error handler can tell this error without loading it.
export type Service = 'postgres' | 'redis';

/** Postgres or Redis stayed unreachable for longer than the command waits. */
export class ServiceUnreachableError extends Error {
  constructor(readonly service: Service, readonly waitedMs: number, reason: string) {
    super(`${service} unreachable for ${Math.round(waitedMs / 1000)} s (${reason}): gave up waiting for it`);
  }
}
