import 'reflect-metadata';
import { ConfigError } from '@sqlsweep/config';
import { SweepConfigError } from '@sqlsweep/contracts';
import { buildProgram } from './program';

buildProgram()
  .parseAsync(process.argv)
  .then(() => process.exit(process.exitCode ?? 0))
  .catch((e: unknown) => {
    // Errors the user can fix are one clear line; anything else keeps its stack.
    const known = e instanceof SweepConfigError || e instanceof ConfigError;
    process.stderr.write(`sqlsweep: ${known ? (e as Error).message : (e as Error).stack ?? String(e)}\n`);
    process.exit(known ? 2 : 1);
  });
