import { isAbsolute, join } from 'node:path';
import type { ScheduleRepository } from '@sqlsweep/db';
import { UnrecoverableError } from '@sqlsweep/queue';
import type { Advancer } from '../advancer';
import type { Planner } from '../planner';
import { planAndCreateRun, type RunCreator } from '../run-creation';
import { readSweepConfigFile } from '../sweep-config-file';
import type { SchedulesFile } from './schedules-file';

export interface FireResult { runId: string; created: boolean }

/** `<schedule>@<fire time ISO>`: a new namespace each night, so LLM stages are asked again, not reused. */
export function scheduleCacheNamespace(schedule: string, firedAt: Date): string {
  return `${schedule}@${firedAt.toISOString()}`;
}

/**
 * Turns one fire of a schedule into a run exactly as POST /runs does (plan, create, reconcile), with priority
 * `nightly` and the fire's cache namespace. A fire delivered twice yields one run.
 */
export class ScheduleFirer {
  constructor(private readonly deps: {
    planner: Planner; advancer: Advancer; schedules: ScheduleRepository;
    file: () => SchedulesFile;
    /** Sweep config paths in the schedules file are relative to this folder. */
    baseDir: string;
    /** Plans and starts the run; default: in this process. The orchestrator passes its planning thread's. */
    createRun?: RunCreator;
  }) {}

  async fire(schedule: string, firedAt: Date): Promise<FireResult> {
    const spec = this.deps.file().schedules[schedule];
    if (!spec) throw new UnrecoverableError(`schedule "${schedule}" fired but is not in the schedules file (removed without a restart?)`);
    const cacheNamespace = scheduleCacheNamespace(schedule, firedAt);
    const fire = await this.deps.schedules.claimFire(schedule, firedAt, cacheNamespace);
    if (fire.runId) return { runId: fire.runId, created: false };

    const sweepPath = isAbsolute(spec.sweep) ? spec.sweep : join(this.deps.baseDir, spec.sweep);
    const source = `${spec.sweep} (schedule ${schedule})`;
    try {
      const request = { configText: await readSweepConfigFile(sweepPath, source), source, overrides: { priority: 'nightly' as const, cacheNamespace } };
      const { runId } = await (this.deps.createRun ?? ((r) => planAndCreateRun(this.deps, r)))(request);
      await this.deps.schedules.attachRun(schedule, firedAt, runId!);
      return { runId: runId!, created: true };
    } catch (e) {
      await this.deps.schedules.recordFireError(schedule, firedAt, (e as Error).message);
      // A config that does not parse or plan will not on a retry either.
      if ((e as Error).name === 'SweepConfigError' || (e as NodeJS.ErrnoException).code === 'ENOENT') throw new UnrecoverableError((e as Error).message);
      throw e;
    }
  }
}
