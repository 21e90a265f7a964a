import 'reflect-metadata';
import { ConfigError } from '@sqlsweep/config';
import { SweepConfigError } from '@sqlsweep/contracts';
import { buildProgram } from './program';
import { InterruptedError, resumeHint, RunNotFinishedError } from './run-ending';
import { isUnreachableError } from '@sqlsweep/db';
import { ServiceUnreachableError } from './service-outages';

buildProgram()
  .parseAsync(process.argv)
  .then(() => process.exit(process.exitCode ?? 0))
  .catch((e: unknown) => {
    // A run that exists but did not finish is kept: the error is followed by the command that resumes it.
    const runId = e instanceof RunNotFinishedError ? e.runId : undefined;
    const cause = e instanceof RunNotFinishedError ? e.reason : e;
    // Errors the user can fix, and ends the user asked for or was told of, are one clear line; anything else keeps its stack.
    const usage = cause instanceof SweepConfigError || cause instanceof ConfigError;
    const unreachable = isUnreachableError(cause) ? ' (is the server named in DATABASE_URL / REDIS_URL running?)' : '';
    const oneLine = usage || cause instanceof InterruptedError || cause instanceof ServiceUnreachableError || unreachable !== '';
    process.stderr.write(`sqlsweep: ${oneLine ? (cause as Error).message + unreachable : (cause as Error).stack ?? String(cause)}\n`);
    if (runId) process.stderr.write(`run ${runId} is kept in Postgres; ${resumeHint(runId)}\n`);
    process.exit(cause instanceof InterruptedError ? cause.exitCode : usage ? 2 : 1);
  });
