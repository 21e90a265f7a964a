import type { Command } from 'commander';
import { connectionWarnings, parseRedisUrl, type CommonEnv } from '@sqlsweep/config';
import { createDb, ensureMigrated, ReportRepository, RunRepository, runsNamedBy, type Db, type VariantRow } from '@sqlsweep/db';
import type { ModelPause } from '@sqlsweep/llm';
import type { RedisClient } from '@sqlsweep/queue';
import { cliEnv, stageFaults } from '../cli-env';
import { renderLeaderboard, renderProgress, renderResolvedKnobs, renderRunList } from '../render';
import { UsageError } from '../usage-error';
import { pauseLines } from './models';

/**
 * A Redis connection for REDIS_URL made as @sqlsweep/queue's createRedisConnection makes it. For a single server that is
 * ioredis with its URL, made here so as not to load the queue library (BullMQ and what it loads are about a third of
 * this command's start); Sentinel and Cluster addresses go through the library.
 */
async function openRedis(redisUrl: string): Promise<RedisClient> {
  if (parseRedisUrl(redisUrl).kind !== 'server') return (await import('@sqlsweep/queue')).createRedisConnection(redisUrl);
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
  redis.on('error', connectionWarnings().listener('redis'));
  return redis;
}

/**
 * The quota pauses of the models a run uses (what OrchestratorCore.pausedModels(runId) answers), on a Redis
 * connection of its own, closed before returning.
 */
async function runPauses(redisUrl: string, queuePrefix: string, variants: readonly VariantRow[]): Promise<ModelPause[]> {
  // The module alone, not the library's index: that also loads the rest of the LLM layer and the YAML parser.
  const { ModelPauses, llmBudgetPrefix } = await import('@sqlsweep/llm/src/model-pauses');
  const redis = await openRedis(redisUrl);
  try {
    const used = new Set(variants.map((v) => v.model));
    return (await new ModelPauses(redis, llmBudgetPrefix(queuePrefix)).list()).filter((p) => used.has(p.model));
  } finally {
    redis.disconnect();
  }
}

/** The run `value` names: a whole id, or the first 4 or more hex digits of exactly one run's id (as the API reads it). */
async function resolveRunId(db: Db, value: string): Promise<string> {
  const ids = await runsNamedBy(db, value);
  if (!ids) throw new UsageError(`"${value}" is not a run id: give the id, or its first 4 or more hex digits`);
  if (ids.length === 0) throw new UsageError(`no run ${value}`);
  if (ids.length > 1) throw new UsageError(`run id prefix "${value}" is ambiguous: it matches ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}; give more digits`);
  return ids[0];
}

/**
 * `sqlsweep status`: reads only. It opens the database alone (no orchestrator core: no model catalog, queues or
 * planner), Redis only for a running run's pauses, and loads the reports library only for a finished run's
 * leaderboard, so that it answers in well under a second however large the run.
 */
export async function showStatus(runIdOrPrefix: string | undefined, say: (line: string) => void, env: CommonEnv = cliEnv()): Promise<void> {
  await ensureMigrated(env.DATABASE_URL);
  await stageFaults();
  const db = createDb(env.DATABASE_URL);
  try {
    const runs = new RunRepository(db);
    const reports = new ReportRepository(db);
    if (!runIdOrPrefix) {
      say(renderRunList(await reports.runs({ limit: 20 })));
      return;
    }
    const runId = await resolveRunId(db, runIdOrPrefix);
    const run = await runs.getRun(runId);
    if (!run) throw new UsageError(`no run ${runIdOrPrefix}`);
    say(`run ${runId}: ${run.status}${run.simulated ? ' [simulated]' : ''}, ${run.item_count} items, ${run.stage_jobs} stage jobs planned, ${run.reused_stages} reused`);
    if (run.status === 'failed') say(`failed: ${run.failure_reason}`);
    const variants = await runs.getVariants(runId);
    for (const line of renderResolvedKnobs(variants.map((v) => ({ label: v.label, resolvedKnobs: v.resolved_knobs })))) say(line);
    say(renderProgress(await reports.stageProgress(runId)));
    if (run.status === 'running') for (const line of pauseLines(await runPauses(env.REDIS_URL, env.SQLSWEEP_QUEUE_PREFIX, variants))) say(line);
    if (run.status === 'done') {
      // The module alone, not the library's index: that loads the planner, the queues, every pipeline and the
      // retrieval and sandbox libraries (1,100 modules in all, about 0.6 s of a status on a slow machine).
      const { leaderboard } = await import('@sqlsweep/orchestration/src/reports/leaderboard');
      const board = await leaderboard(reports, runId);
      const errored = board.reduce((n, r) => n + r.errors, 0);
      if (errored > 0) say(`${errored} of ${board.reduce((n, r) => n + r.items, 0)} item results errored (their stages failed: see the failed column)`);
      say(renderLeaderboard(board));
    }
  } finally {
    await db.destroy();
  }
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('show a run\'s progress per stage and, when done, its leaderboard (when failed, why); without an id, list recent runs')
    .argument('[runId]', 'the run\'s id, or its first 4 or more hex digits')
    .action(async (runId: string | undefined) => showStatus(runId, (line) => console.log(line)));
}
