import { Body, Controller, Get, HttpCode, Inject, NotFoundException, Param, ParseUUIDPipe, Post, UseGuards } from '@nestjs/common';
import { parseSweepConfig, SweepConfigError } from '@sqlsweep/contracts';
import type { OrchestratorCore } from '@sqlsweep/orchestration';
import { BearerGuard } from './bearer.guard';
import { ORCHESTRATOR_CORE } from './tokens';

@Controller()
@UseGuards(BearerGuard)
export class RunsController {
  constructor(@Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore) {}

  @Get('health')
  async health() {
    await this.core.runs.listRuns(1);
    return { status: 'ok', queues: await this.core.queue.depths() };
  }

  @Get('runs')
  async list() {
    return this.core.runs.listRuns(50);
  }

  @Get('runs/:id')
  async get(@Param('id', new ParseUUIDPipe()) id: string) {
    const run = await this.core.runs.getRun(id);
    if (!run) throw new NotFoundException(`no run ${id}`);
    const [progress, leaderboard] = await Promise.all([this.core.runs.stageProgress(id), this.core.runs.leaderboard(id)]);
    return { run, progress, leaderboard };
  }

  /** Body: `{ "config": "<sweep YAML>", "source": "name shown in errors", "dryRun": false }`. */
  @Post('runs')
  @HttpCode(201)
  async create(@Body() body: { config?: unknown; source?: unknown; dryRun?: unknown }) {
    const source = typeof body?.source === 'string' ? body.source : 'request body';
    if (typeof body?.config !== 'string') throw new SweepConfigError(source, 'config', 'expected the sweep config as a YAML string');
    const plan = await this.core.planner.plan(parseSweepConfig(body.config, source), source);
    const summary = { variants: plan.variants.length, items: plan.items.length, stageJobs: plan.stageJobs, reused: plan.reused, byStage: plan.byStage, simulated: plan.simulated };
    if (body.dryRun === true) return { dryRun: true, ...summary };
    const runId = await this.core.planner.createRun(plan);
    await this.core.advancer.reconcile(runId);
    return { runId, ...summary };
  }

  @Post('runs/:id/resume')
  async resume(@Param('id', new ParseUUIDPipe()) id: string) {
    if (!(await this.core.runs.getRun(id))) throw new NotFoundException(`no run ${id}`);
    return this.core.advancer.reconcile(id);
  }
}
