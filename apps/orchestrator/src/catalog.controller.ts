import { Controller, Get, Inject, NotFoundException, Param, Query, UseGuards } from '@nestjs/common';
import { datasetItemsQuerySchema, pageQuerySchema, type DatasetVersionDto, type SweepDetailDto, type SweepSummaryDto } from '@sqlsweep/contracts';
import type { ReportRepository } from '@sqlsweep/db';
import type { OrchestratorCore } from '@sqlsweep/orchestration';
import { BearerGuard } from './bearer.guard';
import { intParam, uuidParam } from './params';
import { parseRequest } from './request-error';
import { ORCHESTRATOR_CORE, REPORTS } from './tokens';

/** Datasets and sweeps: what was registered and what was asked for. */
@Controller()
@UseGuards(BearerGuard)
export class CatalogController {
  constructor(
    @Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore,
    @Inject(REPORTS) private readonly reports: ReportRepository,
  ) {}

  @Get('datasets')
  async datasets(): Promise<DatasetVersionDto[]> {
    return (await this.core.datasets.versionCatalog()).map((v) => ({ ...v, createdAt: v.createdAt.toISOString() }));
  }

  @Get('datasets/:versionId/items')
  async items(@Param('versionId') versionId: string, @Query() query: unknown) {
    const id = intParam(versionId, 'versionId');
    const q = parseRequest(datasetItemsQuerySchema.strict(), query, 'query');
    if (!(await this.core.datasets.versionExists(id))) throw new NotFoundException(`no dataset version ${id}`);
    return { ...(await this.core.datasets.itemPage(id, q.split, q.limit, q.offset)), limit: q.limit, offset: q.offset };
  }

  @Get('sweeps')
  async sweeps(@Query() query: unknown): Promise<SweepSummaryDto[]> {
    const q = parseRequest(pageQuerySchema.strict(), query, 'query');
    return (await this.reports.sweeps(q.limit, q.offset)).map(({ config: _c, ...s }) => ({ ...s, createdAt: s.createdAt.toISOString() }));
  }

  @Get('sweeps/:sweepId')
  async sweep(@Param('sweepId') sweepId: string): Promise<SweepDetailDto> {
    const [s] = await this.reports.sweeps(1, 0, uuidParam(sweepId, 'sweepId'));
    if (!s) throw new NotFoundException(`no sweep ${sweepId}`);
    return { ...s, createdAt: s.createdAt.toISOString() };
  }
}
