import { Body, Controller, Get, HttpCode, Inject, NotFoundException, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import {
  createRunBodySchema, exportQuerySchema, listRunsQuerySchema, paramSweepQuerySchema,
  type CancelRunResponse, type CostAccuracyDto, type LeaderboardRowDto, type ParamSweepDto, type RunDetailDto, type RunSummaryDto, type VariantDto,
} from '@sqlsweep/contracts';
import type { ApiReadRepository } from '@sqlsweep/db';
import type { OrchestratorCore, PlanThread } from '@sqlsweep/orchestration';
import { BearerGuard, OpenRead } from './bearer.guard';
import { cancelRun } from './cancel-run';
import { costAccuracy } from './comparison';
import { exportRun } from './exports';
import { paramSweep } from './param-sweep';
import { uuidParam } from './params';
import { ApiRequestError, parseRequest } from './request-error';
import { leaderboard, runDetail, runSummaryDto, scalarParams, variantDto } from './run-views';
import { API_READS, ORCHESTRATOR_CORE, PLAN_THREAD } from './tokens';

interface DownloadResponse { setHeader(name: string, value: string): void; send(body: string): void }

@Controller()
@UseGuards(BearerGuard)
export class RunsController {
  constructor(
    @Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore,
    @Inject(API_READS) private readonly reads: ApiReadRepository,
    @Inject(PLAN_THREAD) private readonly plans: PlanThread,
  ) {}

  @Get('health')
  @OpenRead()
  async health() {
    await this.core.runs.listRuns(1);
    return { status: 'ok' as const, queues: await this.core.queue.depths() };
  }

  @Get('runs')
  async list(@Query() query: unknown): Promise<RunSummaryDto[]> {
    const q = parseRequest(listRunsQuerySchema, query, 'query');
    return (await this.reads.runs(q)).map(runSummaryDto);
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
    return runDetail(this.reads, run, await this.core.runs.stageProgress(run.id));
  }

  @Post('runs/:runId/cancel')
  async cancel(@Param('runId') runId: string): Promise<CancelRunResponse> {
    const run = await this.requireRun(runId);
    return cancelRun(this.reads, this.core.queue, run);
  }

  @Post('runs/:runId/resume')
  async resume(@Param('runId') runId: string) {
    const run = await this.requireRun(runId);
    if (run.status === 'cancelled') throw new ApiRequestError('path.runId', `run ${run.id} was cancelled; start a new run instead`);
    if (run.status === 'failed') throw new ApiRequestError('path.runId', `run ${run.id} failed (${run.failureReason}); start a new run instead`);
    return { runId: run.id, ...(await this.core.advancer.reconcile(run.id)) };
  }

  @Get('runs/:runId/variants')
  async variants(@Param('runId') runId: string): Promise<VariantDto[]> {
    const run = await this.requireRun(runId);
    return (await this.reads.variants(run.id)).map(variantDto);
  }

  @Get('runs/:runId/leaderboard')
  async leaderboard(@Param('runId') runId: string): Promise<LeaderboardRowDto[]> {
    return leaderboard(this.reads, (await this.requireRun(runId)).id);
  }

  @Get('runs/:runId/cost-accuracy')
  async costAccuracy(@Param('runId') runId: string): Promise<CostAccuracyDto> {
    return costAccuracy(this.reads, (await this.requireRun(runId)).id);
  }

  @Get('runs/:runId/param-sweep')
  async paramSweep(@Param('runId') runId: string, @Query() query: unknown): Promise<ParamSweepDto> {
    const q = parseRequest(paramSweepQuerySchema, query, 'query');
    const board = await leaderboard(this.reads, (await this.requireRun(runId)).id);
    const variants = board.map((r) => ({
      variantId: r.variantId, label: r.label, ex: r.ex, items: r.items, simulated: r.simulated,
      knobs: { pipeline: r.pipeline, model: r.model, sampleIndex: r.sampleIndex, ...scalarParams(r.params) },
    }));
    if (!variants.some((v) => q.knob in v.knobs)) {
      const known = [...new Set(variants.flatMap((v) => Object.keys(v.knobs)))].sort();
      throw new ApiRequestError('query.knob', `no variant of this run has "${q.knob}"; knobs: ${known.join(', ')}`);
    }
    const scorers = [...new Set(board.flatMap((r) => r.scorer?.split(',') ?? []))].sort();
    return { knob: q.knob, ...paramSweep(variants, q.knob), simulated: variants.some((v) => v.simulated), scorer: scorers.join(',') || null };
  }

  @Get('runs/:runId/export')
  async export(@Param('runId') runId: string, @Query() query: unknown, @Res() res: DownloadResponse): Promise<void> {
    const q = parseRequest(exportQuerySchema, query, 'query');
    const file = await exportRun(this.reads, (await this.requireRun(runId)).id, q);
    res.setHeader('content-type', file.contentType);
    res.setHeader('content-disposition', `attachment; filename="${file.filename}"`);
    res.send(file.body);
  }

  private async requireRun(runId: string) {
    const run = await this.reads.run(uuidParam(runId, 'runId'));
    if (!run) throw new NotFoundException(`no run ${runId}`);
    return run;
  }
}
