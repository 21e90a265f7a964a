import { BadRequestException, Controller, Get, Inject, NotFoundException, Param, Query, ServiceUnavailableException, UseGuards } from '@nestjs/common';
import { nextFireAt, regressionDetail, type OrchestratorCore, type ScheduleService } from '@sqlsweep/orchestration';
import { BearerGuard } from '../bearer.guard';
import { resolveRunId } from '../params';
import { ORCHESTRATOR_CORE } from '../tokens';
import { SchedulesHost } from './schedules.host';

const limitOf = (raw: string | undefined, fallback: number): number => {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new BadRequestException(`limit: expected an integer from 1 to 1000, got "${raw}"`);
  return n;
};

/** Schedules, their runs over time (the dashboard's trend view) and regression alerts. */
@Controller()
@UseGuards(BearerGuard)
export class SchedulesController {
  constructor(
    @Inject(SchedulesHost) private readonly host: SchedulesHost,
    @Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore,
  ) {}

  private service(): ScheduleService {
    const s = this.host.schedules;
    if (!s) throw new ServiceUnavailableException('this orchestrator runs no schedules (no schedules file)');
    return s;
  }

  @Get('schedules')
  async list() {
    const service = this.service();
    return Promise.all(Object.entries(service.schedules).map(async ([name, spec]) => {
      const [last] = await service.repository.scheduleRuns(name, 1);
      return { name, ...spec, nextFireAt: nextFireAt(spec).toISOString(), lastRun: last ?? null };
    }));
  }

  @Get('schedules/:name/runs')
  async runs(@Param('name') name: string, @Query('limit') limit?: string) {
    const service = this.service();
    if (!(name in service.schedules)) throw new NotFoundException(`no schedule "${name}"`);
    return service.repository.scheduleRuns(name, limitOf(limit, 100));
  }

  /** What the regression check of one scheduled run found: flipped items per variant, changed items per stage. */
  @Get('schedules/:name/runs/:runId/check')
  async check(@Param('name') name: string, @Param('runId') runId: string) {
    const service = this.service();
    if (!(name in service.schedules)) throw new NotFoundException(`no schedule "${name}"`);
    const id = await resolveRunId(this.core.db, runId);
    const detail = await regressionDetail(service.repository, this.core.reports, id);
    if (!detail || detail.schedule !== name) throw new NotFoundException(`schedule "${name}" has no checked run ${runId}`);
    return detail;
  }

  @Get('alerts')
  async alerts(@Query('schedule') schedule?: string, @Query('limit') limit?: string) {
    return this.service().repository.listAlerts({ schedule, limit: limitOf(limit, 100) });
  }
}
