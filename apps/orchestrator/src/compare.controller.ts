import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { compareQuerySchema, type ComparisonDto } from '@sqlsweep/contracts';
import type { ReportRepository } from '@sqlsweep/db';
import { compareVariants } from '@sqlsweep/orchestration';
import { BearerGuard } from './bearer.guard';
import { parseRequest } from './request-error';
import { REPORTS } from './tokens';

@Controller()
@UseGuards(BearerGuard)
export class CompareController {
  constructor(@Inject(REPORTS) private readonly reports: ReportRepository) {}

  /** Two variants (of one run or two) on their paired items: EX delta, bootstrap interval, McNemar, flips. */
  @Get('compare')
  async compare(@Query() query: unknown): Promise<ComparisonDto> {
    return compareVariants(this.reports, parseRequest(compareQuerySchema, query, 'query'));
  }
}
