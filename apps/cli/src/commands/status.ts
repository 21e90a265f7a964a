import type { Command } from 'commander';
import { leaderboard } from '@sqlsweep/orchestration';
import { openCore } from '../cli-env';
import { renderLeaderboard, renderProgress, renderResolvedKnobs, renderRunList } from '../render';
import { pauseLines } from './models';

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('show a run\'s progress per stage and, when done, its leaderboard (when failed, why); without an id, list recent runs')
    .argument('[runId]')
    .action(async (runId: string | undefined) => {
      const core = await openCore();
      try {
        if (!runId) {
          console.log(renderRunList(await core.reports.runs({ limit: 20 })));
          return;
        }
        const run = await core.runs.getRun(runId);
        if (!run) throw new Error(`no run ${runId}`);
        console.log(`run ${runId}: ${run.status}${run.simulated ? ' [simulated]' : ''}, ${run.item_count} items, ${run.stage_jobs} stage jobs planned, ${run.reused_stages} reused`);
        if (run.status === 'failed') console.log(`failed: ${run.failure_reason}`);
        for (const line of renderResolvedKnobs((await core.runs.getVariants(runId)).map((v) => ({ label: v.label, resolvedKnobs: v.resolved_knobs })))) console.log(line);
        console.log(renderProgress(await core.reports.stageProgress(runId)));
        if (run.status === 'running') for (const line of pauseLines(await core.pausedModels(runId))) console.log(line);
        if (run.status === 'done') {
          const board = await leaderboard(core.reports, runId);
          const errored = board.reduce((n, r) => n + r.errors, 0);
          if (errored > 0) console.log(`${errored} of ${board.reduce((n, r) => n + r.items, 0)} item results errored (their stages failed: see the failed column)`);
          console.log(renderLeaderboard(board));
        }
      } finally {
        await core.close();
      }
    });
}
