import { Controller, Get, HttpCode, Inject, NotFoundException, Param, Post, Query, UseGuards } from '@nestjs/common';
import { pausedModelsQuerySchema, type ModelPauseDto, type ModelResumeResponse } from '@sqlsweep/contracts';
import type { OrchestratorCore } from '@sqlsweep/orchestration';
import { BearerGuard } from './bearer.guard';
import { parseRequest } from './request-error';
import { ORCHESTRATOR_CORE } from './tokens';

/**
 * Models paused because their provider said the quota or credit is spent: their jobs wait until a pause is lifted.
 * Both routes sit behind the global bearer guard (the POST always needs the token).
 */
@Controller()
@UseGuards(BearerGuard)
export class ModelsController {
  constructor(@Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore) {}

  /** Every paused model and why; with `?runId=`, only the models that run uses. */
  @Get('models/paused')
  async paused(@Query() query: unknown): Promise<ModelPauseDto[]> {
    const { runId } = parseRequest(pausedModelsQuerySchema.strict(), query, 'query');
    return this.core.pausedModels(runId);
  }

  /** Lifts a model's pause; 404 when it is not paused. */
  @Post('models/:model/resume')
  @HttpCode(200)
  async resume(@Param('model') model: string): Promise<ModelResumeResponse> {
    const reason = await this.core.resumeModel(model);
    if (reason === null) throw new NotFoundException(`model ${model} is not paused`);
    return { model, resumed: true, pausedFor: reason };
  }
}
