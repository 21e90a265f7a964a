import type { StageJobPayload } from '@sqlsweep/contracts';
import { faultOfStage, TEST_FAULT_PARAM, type StageFaults } from '@sqlsweep/pipelines';
import { UnrecoverableError } from '@sqlsweep/queue';

/**
 * A test fault switch re-keys the stage it breaks when the planner has it on (`KeyingContext.faults`); a worker whose
 * switch disagrees with the plan would store a broken output under a healthy key (or the reverse) and poison every
 * later run that reuses it, so it refuses the job.
 */
export function assertPlannedFault(p: Pick<StageJobPayload, 'stage' | 'params'>, faults: StageFaults | undefined): void {
  const planned = p.params[TEST_FAULT_PARAM];
  const here = faultOfStage(p.stage, faults);
  if ((planned ?? undefined) === here) return;
  throw new UnrecoverableError(
    `stage ${p.stage} was planned with test fault ${planned === undefined ? 'off' : `"${String(planned)}"`} but this worker has it ${here === undefined ? 'off' : `"${here}"`}: ` +
    'start the planning process (orchestrator or CLI) and the workers with the same SQLSWEEP_TEST_FAULT_* switches');
}
