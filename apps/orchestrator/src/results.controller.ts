import { Controller, Get, Inject, NotFoundException, Param, Query, UseGuards } from '@nestjs/common';
import { itemMatrixQuerySchema, itemResultsQuerySchema, type ItemDetailDto, type ItemMatrixDto, type ItemTablesDto, type StageTraceDto } from '@sqlsweep/contracts';
import { ItemMatrixRepository, type ReportRepository } from '@sqlsweep/db';
import { itemDetail, itemMatrix, stageTraceDto, type OrchestratorCore } from '@sqlsweep/orchestration';
import { BearerGuard } from './bearer.guard';
import { resolveRunId, resolveVariantId } from './params';
import { parseRequest } from './request-error';
import { RESULT_ROW_LIMIT, type ResultTableRunner } from './result-tables';
import { ORCHESTRATOR_CORE, REPORTS, RESULT_TABLES } from './tokens';

@Controller('runs/:runId')
@UseGuards(BearerGuard)
export class ResultsController {
  private readonly matrix: ItemMatrixRepository;

  constructor(
    @Inject(REPORTS) private readonly reports: ReportRepository,
    @Inject(RESULT_TABLES) private readonly tables: ResultTableRunner,
    @Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore,
  ) {
    this.matrix = new ItemMatrixRepository(core.db);
  }

  /** Item results: every filter is a bound parameter, the sort column comes from the contract's allow-list. */
  @Get('items')
  async items(@Param('runId') runId: string, @Query() query: unknown) {
    const q = parseRequest(itemResultsQuerySchema, query, 'query');
    const id = await this.requireRun(runId);
    const page = await this.reports.itemResults(id, q);
    return { ...page, limit: q.limit, offset: q.offset };
  }

  /** Items × variants, a page of items at a time, each cell a verdict category. */
  @Get('matrix')
  async itemMatrix(@Param('runId') runId: string, @Query() query: unknown): Promise<ItemMatrixDto> {
    const q = parseRequest(itemMatrixQuerySchema, query, 'query');
    return itemMatrix(this.reports, this.matrix, await this.requireRun(runId), q);
  }

  @Get('items/:itemId')
  async item(@Param('runId') runId: string, @Param('itemId') itemId: string): Promise<ItemDetailDto> {
    const id = await this.requireRun(runId);
    const detail = await itemDetail(this.reports, id, itemId);
    if (!detail) throw new NotFoundException(`run ${runId} has no item ${itemId}`);
    return detail;
  }

  @Get('variants/:variantId/items/:itemId/stages')
  async stages(@Param('runId') runId: string, @Param('variantId') variantId: string, @Param('itemId') itemId: string): Promise<StageTraceDto[]> {
    const id = await this.requireRun(runId);
    const rows = await this.reports.stageTraces(id, await this.requireVariant(id, variantId), itemId);
    if (rows.length === 0) throw new NotFoundException(`run ${runId} plans no stage for variant ${variantId} and item ${itemId}`);
    return rows.map(stageTraceDto);
  }

  /** Gold and predicted result tables, executed now on the read-only replica, made here from the dataset store when absent (the run stores verdicts, not tables). */
  @Get('variants/:variantId/items/:itemId/tables')
  async itemTables(@Param('runId') runId: string, @Param('variantId') variantId: string, @Param('itemId') itemId: string): Promise<ItemTablesDto> {
    const id = await this.requireRun(runId);
    const vid = await this.requireVariant(id, variantId);
    const x = await this.reports.itemExecution(id, vid, itemId);
    if (!x) throw new NotFoundException(`run ${runId} has no variant ${variantId} with item ${itemId}`);
    const replica = await this.tables.replica({ ...x, file: x.replicaPath });
    const gold = await this.tables.table(replica, x.goldSql, x.format, 'gold');
    const predicted = x.hasResult
      ? await this.tables.table(replica, x.predictedSql, x.format, 'pred')
      : { sql: null, status: 'missing' as const, columns: [], rows: [], rowCount: 0, truncated: false, message: 'no result yet', elapsedMs: 0 };
    return { runId: id, variantId: vid, itemId, dbId: x.dbId, gold, predicted, rowLimit: RESULT_ROW_LIMIT, simulated: x.simulated };
  }

  /** The run's full id from a path's full or short id; 404 when no run has it. */
  private async requireRun(runId: string): Promise<string> {
    const id = await resolveRunId(this.core.db, runId);
    if (!(await this.reports.run(id))) throw new NotFoundException(`no run ${runId}`);
    return id;
  }

  private async requireVariant(runId: string, variantId: string): Promise<string> {
    return resolveVariantId((await this.reports.variants(runId)).map((v) => v.id), variantId, runId);
  }
}
