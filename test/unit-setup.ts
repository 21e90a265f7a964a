import { buildMinibench } from '@sqlsweep/minibench';

/**
 * Jest global set-up of the unit project: the bundled minibench built into data/minibench/dist (about 2 s the first
 * time, nothing when its sources are unchanged), which several unit suites load. It starts no service: unit suites
 * must pass with Redis and Postgres unreachable.
 */
export default async function unitSetup(): Promise<void> {
  await buildMinibench();
}
