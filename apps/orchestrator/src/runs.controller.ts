import { Body, Controller, Get, Headers, HttpCode, Inject, NotFoundException, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import {
  createRunBodySchema, exportQuerySchema, listRunsQuerySchema, paramSweepQuerySchema, rerunBodySchema,
  type AccessDto, type CancelRunResponse, type RunCostDto, type CostAccuracyDto, type LeaderboardRowDto, type ParamSweepDto, type RunDetailDto, type RunSummaryDto, type VariantDto,
} from '@sqlsweep/contracts';
import type { ReportRepository } from '@sqlsweep/db';
import {
  cancelRun, costAccuracy, exportRun, leaderboard, runCost, runDetail, runParamSweep, runSummaryDto, variantDto, type OrchestratorCore, type PlanThread,
} from '@sqlsweep/orchestration';
import { access, BearerGuard, bearerToken, OpenRead } from './bearer.guard';
import { resolveRunId } from './params';
import { ApiRequestError, parseRequest } from './request-error';
import { ORCHESTRATOR_CORE, ORCHESTRATOR_ENV, PLAN_THREAD, REPORTS } from './tokens';

interface DownloadResponse { setHeader(name: string, value: string): void; send(body: string): void }

@Controller()
@UseGuards(BearerGuard)
export class RunsController {
  constructor(
    @Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore,
    @Inject(REPORTS) private readonly reports: ReportRepository,
    @Inject(PLAN_THREAD) private readonly plans: PlanThread,
    @Inject(ORCHESTRATOR_ENV) private readonly env: AppEnv<'orchestrator'>,
  ) {}

  /** What the presented token may do; answered to anyone (it says nothing stored), so the dashboard can explain disabled actions. */
  @Get('access')
  @OpenRead()
  access(@Headers('authorization') authorization: string | undefined): AccessDto {
    return access(this.env, bearerToken(authorization));
  }

  @Get('health')
  @OpenRead()
  async health() {
    await this.reports.runs({ limit: 1 });
    return { status: 'ok' as const, queues: await this.core.queue.depths() };
  }

  @Get('runs')
  async list(@Query() query: unknown): Promise<RunSummaryDto[]> {
    const q = parseRequest(listRunsQuerySchema, query, 'query');
    return (await this.reports.runs(q)).map(runSummaryDto);
  }

  @Post('runs')
  @HttpCode(201)
  async create(@Body() body: unknown) {
    const b = parseRequest(createRunBodySchema, body, 'body');
    // Parsing, planning, storing and enqueueing happen in the planning thread: a large plan never blocks this loop.
    const { runId, summary } = await this.plans.createRun({ configText: b.config, source: b.source, dryRun: b.dryRun });
    return b.dryRun ? { dryRun: true, ...summary } : { runId, ...summary };
  }

  @Get('runs/:runId')
  async get(@Param('runId') runId: string): Promise<RunDetailDto> {
    const run = await this.requireRun(runId);
    return runDetail(this.reports, run);
  }

  @Post('runs/:runId/cancel')
  async cancel(@Param('runId') runId: string): Promise<CancelRunResponse> {
    const run = await this.requireRun(runId);
    return cancelRun(this.core.runs, this.core.queue, run);
  }

  @Post('runs/:runId/resume')
  async resume(@Param('runId') runId: string) {
    const run = await this.requireRun(runId);
    if (run.status === 'cancelled') throw new ApiRequestError('path.runId', `run ${run.id} was cancelled; start a new run instead`);
    if (run.status === 'failed') throw new ApiRequestError('path.runId', `run ${run.id} failed (${run.failureReason}); start a new run instead`);
    return { runId: run.id, ...(await this.core.advancer.reconcile(run.id)) };
  }

  /** The run's sweep again, as stored, under a new cache namespace: its LLM stages call again, the rest is reused. */
  @Post('runs/:runId/rerun')
  @HttpCode(201)
  async rerun(@Param('runId') runId: string, @Body() body: unknown) {
    const b = parseRequest(rerunBodySchema, body ?? {}, 'body');
    const run = await this.requireRun(runId);
    const [sweep] = await this.reports.sweeps(1, 0, run.sweepId);
    if (!sweep) throw new NotFoundException(`run ${run.id} has no stored sweep ${run.sweepId}`);
    const cacheNamespace = b.cacheNamespace ?? `rerun-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const { runId: newRunId, summary } = await this.plans.createRun({
      configText: JSON.stringify(sweep.config), source: `sweep ${sweep.name} (re-run of run ${run.id})`, overrides: { cacheNamespace }, dryRun: b.dryRun,
    });
    return b.dryRun ? { dryRun: true, cacheNamespace, ...summary } : { runId: newRunId, cacheNamespace, ...summary };
  }

  @Get('runs/:runId/cost')
  async cost(@Param('runId') runId: string): Promise<RunCostDto> {
    return runCost(this.reports, await this.requireRun(runId));
  }

  @Get('runs/:runId/variants')
  async variants(@Param('runId') runId: string): Promise<VariantDto[]> {
    const run = await this.requireRun(runId);
    return (await this.reports.variants(run.id)).map(variantDto);
  }

  @Get('runs/:runId/leaderboard')
  async leaderboard(@Param('runId') runId: string): Promise<LeaderboardRowDto[]> {
    return leaderboard(this.reports, (await this.requireRun(runId)).id);
  }

  @Get('runs/:runId/cost-accuracy')
  async costAccuracy(@Param('runId') runId: string): Promise<CostAccuracyDto> {
    return costAccuracy(this.reports, (await this.requireRun(runId)).id);
  }

  @Get('runs/:runId/param-sweep')
  async paramSweep(@Param('runId') runId: string, @Query() query: unknown): Promise<ParamSweepDto> {
    const q = parseRequest(paramSweepQuerySchema, query, 'query');
    return runParamSweep(this.reports, (await this.requireRun(runId)).id, q.knob);
  }

  @Get('runs/:runId/export')
  async export(@Param('runId') runId: string, @Query() query: unknown, @Res() res: DownloadResponse): Promise<void> {
    const q = parseRequest(exportQuerySchema, query, 'query');
    const file = await exportRun(this.reports, (await this.requireRun(runId)).id, q);
    res.setHeader('content-type', file.contentType);
    res.setHeader('content-disposition', `attachment; filename="${file.filename}"`);
    res.send(file.body);
  }

  /** The run of a path's id, full or short (a unique prefix). */
  private async requireRun(runId: string) {
    const run = await this.reports.run(await resolveRunId(this.core.db, runId));
    if (!run) throw new NotFoundException(`no run ${runId}`);
    return run;
  }
}
