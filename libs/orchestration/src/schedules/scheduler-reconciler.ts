import type { Queue } from 'bullmq';
import { CATALOG_BACKOFF, jobCatalog } from '@sqlsweep/queue';
import type { SchedulesFile } from './schedules-file';

export interface ReconcileReport { added: string[]; changed: string[]; removed: string[]; unchanged: string[] }

/**
 * Makes the BullMQ job schedulers of the schedules queue match the file: adds new schedules, updates those whose
 * cron or time zone changed, removes those no longer named. Every scheduler on this queue is a schedule, keyed by
 * its name, so running it again (or on two orchestrators) never makes duplicates.
 */
export async function reconcileSchedulers(queue: Queue, file: SchedulesFile): Promise<ReconcileReport> {
  const existing = new Map<string, { pattern?: string | null; tz?: string | null }>();
  for (let start = 0; ; start += 100) {
    const page = await queue.getJobSchedulers(start, start + 99, true);
    for (const s of page) existing.set(s.key, { pattern: s.pattern, tz: s.tz });
    if (page.length < 100) break;
  }
  const report: ReconcileReport = { added: [], changed: [], removed: [], unchanged: [] };
  for (const [name, spec] of Object.entries(file.schedules)) {
    const now = existing.get(name);
    if (now && now.pattern === spec.cron && (now.tz ?? 'UTC') === spec.timezone) {
      report.unchanged.push(name);
      continue;
    }
    await queue.upsertJobScheduler(name, { pattern: spec.cron, tz: spec.timezone }, {
      name: 'schedule.fire',
      data: { schedule: name },
      opts: { removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 }, attempts: jobCatalog['schedule.fire'].attempts, backoff: { type: CATALOG_BACKOFF, delay: jobCatalog['schedule.fire'].backoffMs } },
    });
    (now ? report.changed : report.added).push(name);
  }
  for (const name of [...existing.keys()].sort()) {
    if (!(name in file.schedules)) {
      await queue.removeJobScheduler(name);
      report.removed.push(name);
    }
  }
  return report;
}
