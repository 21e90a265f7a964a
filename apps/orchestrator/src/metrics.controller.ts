import { Controller, Get, Inject, Res, UseGuards } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { BearerGuard, OpenRead } from './bearer.guard';
import { METRICS_REGISTRY } from './tokens';

/** Prometheus scrape endpoint at /metrics (outside the /api prefix): counts only (no content), so always open. */
@Controller()
@UseGuards(BearerGuard)
@OpenRead()
export class MetricsController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  @Get('metrics')
  async metrics(@Res() res: { setHeader(n: string, v: string): void; send(b: string): void }): Promise<void> {
    const body = await this.registry.metrics();
    res.setHeader('content-type', this.registry.contentType);
    res.send(body);
  }
}
