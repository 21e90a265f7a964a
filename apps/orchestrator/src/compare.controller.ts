import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { compareQuerySchema, type ComparisonDto } from '@sqlsweep/contracts';
import type { ApiReadRepository } from '@sqlsweep/db';
import { BearerGuard } from './bearer.guard';
import { compare } from './comparison';
import { parseRequest } from './request-error';
import { API_READS } from './tokens';

@Controller()
@UseGuards(BearerGuard)
export class CompareController {
  constructor(@Inject(API_READS) private readonly reads: ApiReadRepository) {}

  /** Two variants (of one run or two) on their paired items: EX delta, bootstrap interval, McNemar, flips. */
  @Get('compare')
  async compare(@Query() query: unknown): Promise<ComparisonDto> {
    return compare(this.reads, parseRequest(compareQuerySchema, query, 'query'));
  }
}
