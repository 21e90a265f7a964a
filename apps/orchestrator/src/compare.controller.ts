import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { compareQuerySchema, uuidSchema, type ComparisonDto } from '@sqlsweep/contracts';
import { isIdPrefix, type ReportRepository } from '@sqlsweep/db';
import { compareVariants, type OrchestratorCore } from '@sqlsweep/orchestration';
import { BearerGuard } from './bearer.guard';
import { resolveRunId } from './params';
import { parseRequest } from './request-error';
import { ORCHESTRATOR_CORE, REPORTS } from './tokens';

@Controller()
@UseGuards(BearerGuard)
export class CompareController {
  constructor(
    @Inject(REPORTS) private readonly reports: ReportRepository,
    @Inject(ORCHESTRATOR_CORE) private readonly core: OrchestratorCore,
  ) {}

  /** Two variants (of one run or two) on their paired items: EX delta, bootstrap interval, McNemar, flips. Runs by full or short id. */
  @Get('compare')
  async compare(@Query() query: unknown): Promise<ComparisonDto> {
    const q = { ...(query as Record<string, unknown>) };
    for (const side of ['runA', 'runB'] as const) {
      const v = q[side];
      // A short id (8 hex digits, say) becomes the run's full id; anything else is left to the schema's 400.
      if (typeof v === 'string' && !uuidSchema.safeParse(v).success && isIdPrefix(v)) q[side] = await resolveRunId(this.core.db, v, side);
    }
    return compareVariants(this.reports, parseRequest(compareQuerySchema, q, 'query'));
  }
}
