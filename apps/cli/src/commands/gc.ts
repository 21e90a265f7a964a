import type { Command } from 'commander';
import { StageResultGc } from '@sqlsweep/db';
import { openCore } from '../cli-env';
import { formatBytes } from '../render';

/**
 * `sqlsweep gc [--dry-run]`: removes the stage results that no stored run's plan references (see StageResultGc for
 * why this is safe while runs are being planned). Dataset files have their own `sqlsweep datasets gc`.
 */
export function registerGcCommand(program: Command): void {
  program
    .command('gc')
    .description('remove stored stage results that no stored run references (--dry-run: say how many and how large, remove nothing)')
    .option('--dry-run', 'count the unreferenced stage results and their size; remove nothing')
    .option('--batch-size <n>', 'stage results removed per transaction (planning waits at most one batch)', (v) => positiveInt(v), 5000)
    .action(async (opts: { dryRun?: boolean; batchSize: number }) => {
      const core = await openCore();
      try {
        const gc = new StageResultGc(core.db);
        const before = await gc.totals();
        if (opts.dryRun) {
          const found = await gc.unreferenced();
          console.log(`would remove ${found.results} of ${before.results} stage result(s) that no stored run references, ${formatBytes(found.bytes)} of row data (dry run: nothing removed)`);
          return;
        }
        const removed = await gc.removeUnreferenced({ batchSize: opts.batchSize });
        console.log(`removed ${removed.results} of ${before.results} stage result(s) that no stored run references, ${formatBytes(removed.bytes)} of row data; ${before.results - removed.results} kept`);
        if (removed.results > 0) console.log('Postgres reuses the freed space after a vacuum (autovacuum does it); VACUUM FULL stage_results returns it to the file system');
      } finally {
        await core.close();
      }
    });
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--batch-size: expected a whole number >= 1, got "${v}"`);
  return n;
}
