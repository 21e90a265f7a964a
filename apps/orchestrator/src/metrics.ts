import { Gauge, Registry } from 'prom-client';
import type { ApiMetricsRepository } from '@sqlsweep/db';
import { queueNames, type QueueClient } from '@sqlsweep/queue';

/** Window over which stage throughput (jobs/s per stage kind) is measured from stage_results timestamps. */
export const THROUGHPUT_WINDOW_SECONDS = 60;
const jobStates = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const;

/**
 * A Prometheus registry whose gauges are read at scrape time: queue depths and rate-limit waits from Redis,
 * stage throughput, LLM tokens and cost, failures and sandbox timeouts from Postgres. One registry per app.
 */
export function createMetricsRegistry(repo: ApiMetricsRepository, queue: QueueClient): Registry {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge) => Promise<void>) =>
    new Gauge({ name, help, labelNames, registers: [registry], async collect() { this.reset(); await collect(this); } });

  gauge('sqlsweep_queue_jobs', 'Jobs in each BullMQ queue by state', ['queue', 'state'], async (g) => {
    for (const name of queueNames) {
      const counts = await queue.queue(name).getJobCounts(...jobStates);
      for (const state of jobStates) g.set({ queue: name, state }, counts[state] ?? 0);
    }
  });
  gauge('sqlsweep_queue_rate_limit_wait_seconds', 'Remaining rate-limit wait a worker set on the queue after an HTTP 429 or an exhausted budget', ['queue'], async (g) => {
    for (const name of queueNames) g.set({ queue: name }, Math.max(0, await queue.queue(name).getRateLimitTtl()) / 1000);
  });

  let totals: Awaited<ReturnType<ApiMetricsRepository['stageTotals']>> = [];
  let totalsAt = 0;
  const stageTotals = async () => {
    if (Date.now() - totalsAt > 1000) {
      totals = await repo.stageTotals(THROUGHPUT_WINDOW_SECONDS);
      totalsAt = Date.now();
    }
    return totals;
  };
  gauge('sqlsweep_stage_results', 'Stage results stored, by stage kind', ['stage'], async (g) => {
    for (const t of await stageTotals()) g.set({ stage: t.stage }, t.completed);
  });
  gauge('sqlsweep_stage_jobs_per_second', `Stage results written per second over the last ${THROUGHPUT_WINDOW_SECONDS} s, by stage kind`, ['stage'], async (g) => {
    for (const t of await stageTotals()) g.set({ stage: t.stage }, t.recent / THROUGHPUT_WINDOW_SECONDS);
  });
  gauge('sqlsweep_llm_tokens', 'LLM tokens recorded in stage results', ['stage', 'kind'], async (g) => {
    for (const t of await stageTotals()) {
      g.set({ stage: t.stage, kind: 'input' }, t.inputTokens);
      g.set({ stage: t.stage, kind: 'cached_input' }, t.cachedInputTokens);
      g.set({ stage: t.stage, kind: 'output' }, t.outputTokens);
    }
  });
  gauge('sqlsweep_llm_cost_usd', 'LLM cost paid for stage results (answers reused from the response cache excluded), in US dollars', ['stage'], async (g) => {
    for (const t of await stageTotals()) g.set({ stage: t.stage }, t.costUsd);
  });
  gauge('sqlsweep_stage_failures', 'Stages that failed for good, by stage kind', ['stage'], async (g) => {
    for (const f of await repo.failedStages()) g.set({ stage: f.stage }, f.failed);
  });
  gauge('sqlsweep_sandbox_timeouts', 'SQL executions (gold or predicted) that hit the sandbox deadline', [], async (g) => {
    g.set(await repo.sandboxTimeouts());
  });
  gauge('sqlsweep_runs', 'Runs by status', ['status'], async (g) => {
    for (const r of await repo.runsByStatus()) g.set({ status: r.status }, r.n);
  });
  return registry;
}
