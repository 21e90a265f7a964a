import { constants } from 'node:os';

/** The line every end of `sqlsweep run` prints once its run exists: how to pick the run up again. */
export function resumeHint(runId: string): string {
  return `resume it with: sqlsweep run --resume ${runId}`;
}

/** SIGINT, SIGTERM or SIGHUP asked `sqlsweep run` to stop. */
export class InterruptedError extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }

  /** 130 for SIGINT, 143 for SIGTERM: what a shell reports for a command killed by the signal. */
  get exitCode(): number { return 128 + (constants.signals[this.signal] ?? 0); }
}

/** What ended `sqlsweep run` after its run was created: the run is kept in Postgres, and can be resumed. */
export class RunNotFinishedError extends Error {
  constructor(readonly runId: string, readonly reason: unknown) {
    super(`run ${runId} not finished: ${(reason as Error)?.message ?? String(reason)}`);
  }
}

const stopSignals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Turns the first stop signal into a rejection of `interrupted`, so the command can stop what it started and say how
 * to resume; a second one calls `onSecond` (stop at once).
 */
export function catchStopSignals(onSecond: (signal: NodeJS.Signals) => void): { interrupted: Promise<never>; dispose(): void } {
  let first: NodeJS.Signals | undefined;
  let reject!: (e: InterruptedError) => void;
  const interrupted = new Promise<never>((_, r) => { reject = r; });
  interrupted.catch(() => undefined); // raced by the command; never an unhandled rejection
  const onSignal = (signal: NodeJS.Signals) => {
    if (first) return onSecond(signal);
    first = signal;
    reject(new InterruptedError(signal));
  };
  for (const s of stopSignals) process.on(s, onSignal);
  return { interrupted, dispose: () => { for (const s of stopSignals) process.off(s, onSignal); } };
}
