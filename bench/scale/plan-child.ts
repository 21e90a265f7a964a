/**
 * One plan of bench/scale, in a process of its own so that its peak RSS is the planner's alone: opens an orchestrator
 * core as the CLI does, plans the sweep config given (streaming; `--dry-run` stores nothing) and prints one JSON line
 * with the plan's counts (the parent counts the run_stages rows), its wall time and the process's RSS (peak, and sampled every 250 ms while planning).
 *
 *   node -r @swc-node/register bench/scale/plan-child.ts CONFIG [--dry-run]   (DATABASE_URL, REDIS_URL, SQLSWEEP_MODELS_FILE)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseSweepConfig } from '@sqlsweep/contracts';
import { OrchestratorCore } from '@sqlsweep/orchestration';

export interface PlanChildResult {
  dryRun: boolean; runId?: string; variants: number; items: number; stageJobs: number; reused: number;
  wallMs: number; cpuMs: number; peakRssMiB: number; liveHeapMiBAtEnd?: number; rssSamplesMiB: number[]; heapUsedMiBAtEnd: number;
}

/** The heap left once garbage is collected, when this process runs with --expose-gc. */
function liveHeapMiB(): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return undefined;
  gc();
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'dry-run': { type: 'boolean', default: false } } });
  const file = positionals[0];
  if (!file) throw new Error('usage: plan-child.ts CONFIG [--dry-run]');
  const env = process.env;
  const core = new OrchestratorCore({
    databaseUrl: env.DATABASE_URL!, redisUrl: env.REDIS_URL!, queuePrefix: env.SQLSWEEP_QUEUE_PREFIX ?? 'bench-scale',
    modelsFile: env.SQLSWEEP_MODELS_FILE ?? 'configs/models.yaml', providerEnv: env,
    admission: { maxVariants: 10_000, maxStageJobs: 20_000_000 },
  });
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(mib(process.memoryUsage.rss())), 250);
  try {
    const config = parseSweepConfig(readFileSync(file, 'utf8'), file);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const { plan, runId } = await core.planner.planRun(config, file, { dryRun: values['dry-run'] });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    clearInterval(sampler);
    const result: PlanChildResult = {
      dryRun: values['dry-run'] ?? false, runId, variants: plan.variants.length, items: plan.items.length, stageJobs: plan.stageJobs, reused: plan.reused,
      wallMs: Math.round(wallMs), cpuMs: Math.round((used.user + used.system) / 1000), liveHeapMiBAtEnd: liveHeapMiB(), peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), rssSamplesMiB: samples, heapUsedMiBAtEnd: mib(process.memoryUsage().heapUsed),
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    clearInterval(sampler);
    await core.close();
  }
}

main().catch((e: Error) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
