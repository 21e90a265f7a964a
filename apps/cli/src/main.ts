import 'reflect-metadata';
import { buildProgram } from './program';
import { InterruptedError, resumeHint, RunNotFinishedError } from './run-ending';

/**
 * Says why the command failed and exits. The error classes are loaded here, not at start: a command that fails
 * has them loaded already if it could have thrown them, and one that succeeds never needs them.
 */
async function fail(e: unknown): Promise<never> {
  const [{ ConfigError }, { SweepConfigError }, { isUnreachableError }, { ServiceUnreachableError }, { UsageError }] = await Promise.all([
    import('@sqlsweep/config'), import('@sqlsweep/contracts'), import('@sqlsweep/db'), import('./service-unreachable'), import('./usage-error'),
  ]);
  // A run that exists but did not finish is kept: the error is followed by the command that resumes it.
  const runId = e instanceof RunNotFinishedError ? e.runId : undefined;
  const cause = e instanceof RunNotFinishedError ? e.reason : e;
  // Errors the user can fix, and ends the user asked for or was told of, are one clear line; anything else keeps its stack.
  const usage = cause instanceof SweepConfigError || cause instanceof ConfigError || cause instanceof UsageError;
  const unreachable = isUnreachableError(cause) ? ' (is the server named in DATABASE_URL / REDIS_URL running?)' : '';
  const oneLine = usage || cause instanceof InterruptedError || cause instanceof ServiceUnreachableError || unreachable !== '';
  process.stderr.write(`sqlsweep: ${oneLine ? (cause as Error).message + unreachable : (cause as Error).stack ?? String(cause)}\n`);
  if (runId) process.stderr.write(`run ${runId} is kept in Postgres; ${resumeHint(runId)}\n`);
  process.exit(cause instanceof InterruptedError ? cause.exitCode : usage ? 2 : 1);
}

buildProgram(process.argv)
  .then((program) => program.parseAsync(process.argv))
  .then(() => process.exit(process.exitCode ?? 0))
  .catch(fail);
