import type { Command } from 'commander';
import type { ModelPause } from '@sqlsweep/llm';
import type { OrchestratorCore } from '@sqlsweep/orchestration';
import { openCore } from '../cli-env';

/** One line per paused model: which, why, that its jobs wait, and the command that lifts the pause. */
export function pauseLines(pauses: ModelPause[]): string[] {
  return pauses.map((p) => `model ${p.model} is paused: ${p.reason}. Its jobs wait; once the account has quota again: sqlsweep models resume ${p.model}`);
}

/**
 * What `sqlsweep run` says while its run does not move: which of its models are paused for their quota and why (and
 * when no pause is left), once per change; `said` is what it said last (returned anew). Best effort: a failed look is
 * tried again at the next progress read.
 */
export async function sayPauses(core: Pick<OrchestratorCore, 'pausedModels'>, runId: string, said: string, say: (line: string) => void): Promise<string> {
  const pauses = await core.pausedModels(runId).catch(() => undefined);
  if (!pauses) return said;
  const now = pauses.map((p) => `${p.model}: ${p.reason}`).join('\n');
  if (now === said) return said;
  for (const line of pauseLines(pauses)) say(line);
  if (pauses.length === 0) say('no model of this run is paused any more');
  return now;
}

export function registerModelsCommand(program: Command): void {
  const models = program.command('models').description('models paused because their provider said the quota or credit is spent, and lifting such a pause');
  models
    .command('paused')
    .description('list the paused models and why')
    .action(async () => {
      const core = await openCore();
      try {
        const pauses = await core.pausedModels();
        console.log(pauses.length ? pauseLines(pauses).join('\n') : 'no model is paused');
      } finally {
        await core.close();
      }
    });
  models
    .command('resume')
    .description('lift a model\'s pause: its waiting jobs go on within seconds (paused again if the provider still refuses)')
    .argument('<model>')
    .action(async (model: string) => {
      const core = await openCore();
      try {
        const reason = await core.resumeModel(model);
        if (reason === null) {
          const paused = (await core.pausedModels()).map((p) => p.model);
          console.error(`sqlsweep: model ${model} is not paused (paused: ${paused.length ? paused.join(', ') : 'none'})`);
          process.exitCode = 1;
          return;
        }
        console.log(`model ${model} resumed (it was paused: ${reason}); its waiting jobs go on at their next check (within 10 s)`);
      } finally {
        await core.close();
      }
    });
}
