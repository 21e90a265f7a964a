import { removeTestQueueKeys } from '@sqlsweep/testing';

/** Jest global teardown: the run's queue keys leave Redis, with those of runs that died over a day ago. */
export default async function globalTeardown(): Promise<void> {
  const run = process.env.SQLSWEEP_TEST_RUN;
  if (run && process.env.REDIS_URL) await removeTestQueueKeys(process.env.REDIS_URL, { run });
}
