import { Controller, Get, Inject, NotFoundException, Param, Query, UseGuards } from '@nestjs/common';
import { itemResultsQuerySchema, type ItemDetailDto, type ItemTablesDto, type StageTraceDto } from '@sqlsweep/contracts';
import type { ReportRepository } from '@sqlsweep/db';
import { itemDetail, stageTraceDto } from '@sqlsweep/orchestration';
import { BearerGuard } from './bearer.guard';
import { uuidParam } from './params';
import { parseRequest } from './request-error';
import { RESULT_ROW_LIMIT, type ResultTableRunner } from './result-tables';
import { REPORTS, RESULT_TABLES } from './tokens';

@Controller('runs/:runId')
@UseGuards(BearerGuard)
export class ResultsController {
  constructor(
    @Inject(REPORTS) private readonly reports: ReportRepository,
    @Inject(RESULT_TABLES) private readonly tables: ResultTableRunner,
  ) {}

  /** Item results: every filter is a bound parameter, the sort column comes from the contract's allow-list. */
  @Get('items')
  async items(@Param('runId') runId: string, @Query() query: unknown) {
    const q = parseRequest(itemResultsQuerySchema, query, 'query');
    await this.requireRun(runId);
    const page = await this.reports.itemResults(runId, q);
    return { ...page, limit: q.limit, offset: q.offset };
  }

  @Get('items/:itemId')
  async item(@Param('runId') runId: string, @Param('itemId') itemId: string): Promise<ItemDetailDto> {
    await this.requireRun(runId);
    const detail = await itemDetail(this.reports, runId, itemId);
    if (!detail) throw new NotFoundException(`run ${runId} has no item ${itemId}`);
    return detail;
  }

  @Get('variants/:variantId/items/:itemId/stages')
  async stages(@Param('runId') runId: string, @Param('variantId') variantId: string, @Param('itemId') itemId: string): Promise<StageTraceDto[]> {
    await this.requireRun(runId);
    uuidParam(variantId, 'variantId');
    const rows = await this.reports.stageTraces(runId, variantId, itemId);
    if (rows.length === 0) throw new NotFoundException(`run ${runId} plans no stage for variant ${variantId} and item ${itemId}`);
    return rows.map(stageTraceDto);
  }

  /** Gold and predicted result tables, executed now on the read-only replica, made here from the dataset store when absent (the run stores verdicts, not tables). */
  @Get('variants/:variantId/items/:itemId/tables')
  async itemTables(@Param('runId') runId: string, @Param('variantId') variantId: string, @Param('itemId') itemId: string): Promise<ItemTablesDto> {
    await this.requireRun(runId);
    const x = await this.reports.itemExecution(runId, uuidParam(variantId, 'variantId'), itemId);
    if (!x) throw new NotFoundException(`run ${runId} has no variant ${variantId} with item ${itemId}`);
    const replica = await this.tables.replica({ ...x, file: x.replicaPath });
    const gold = await this.tables.table(replica, x.goldSql, x.format, 'gold');
    const predicted = x.hasResult
      ? await this.tables.table(replica, x.predictedSql, x.format, 'pred')
      : { sql: null, status: 'missing' as const, columns: [], rows: [], rowCount: 0, truncated: false, message: 'no result yet', elapsedMs: 0 };
    return { runId, variantId, itemId, dbId: x.dbId, gold, predicted, rowLimit: RESULT_ROW_LIMIT, simulated: x.simulated };
  }

  private async requireRun(runId: string): Promise<void> {
    if (!(await this.reports.run(uuidParam(runId, 'runId')))) throw new NotFoundException(`no run ${runId}`);
  }
}
