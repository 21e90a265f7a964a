/**
 * Follows one run from the benchmark's side: every 500 ms, how many stage results, stage failures and item results
 * it has stored, and its status. Progress is a change of that count; a stall is the longest time without one.
 * Postgres being down is no progress, not an error.
 */
import { queryRows, type Db } from '@sqlsweep/db';

export const TERMINAL_STATUSES = ['done', 'failed', 'cancelled'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RunWatch {
  /** When the stored count was seen to change. */
  readonly progressAt: number[] = [];
  status = 'unknown';
  endedAt?: number;
  private stored = -1;
  private running = true;
  private readonly polling: Promise<void>;

  constructor(private readonly db: Db, private readonly runId: string, private readonly everyMs = 500) {
    this.polling = this.poll();
  }

  private async poll(): Promise<void> {
    while (this.running && this.endedAt === undefined) {
      try {
        const rows = await queryRows<{ status: string; stored: number }>(this.db)`
          SELECT r.status,
                 (SELECT count(*) FROM stage_results)::int + (SELECT count(*) FROM stage_failures WHERE run_id = r.id)::int
                   + (SELECT count(*) FROM item_results WHERE run_id = r.id)::int AS stored
          FROM runs r WHERE r.id = ${this.runId}`;
        const row = rows[0];
        if (row) {
          if (row.stored !== this.stored) {
            this.stored = row.stored;
            this.progressAt.push(Date.now());
          }
          this.status = row.status;
          if (TERMINAL_STATUSES.includes(row.status)) this.endedAt = Date.now();
        }
      } catch {
        // Postgres restarting: no progress to see.
      }
      await sleep(this.everyMs);
    }
  }

  /** Resolves once the run is in a terminal state, or at `deadline` (ms since the epoch); true if it ended. */
  async untilTerminal(deadline: number): Promise<boolean> {
    while (this.endedAt === undefined && Date.now() < deadline) await sleep(200);
    return this.endedAt !== undefined;
  }

  /**
   * Seconds of the longest time without progress from `from` until the run ended (or `until`, when it did not): the
   * gaps between progress seen after `from`, the first counted from `from`, the last up to the end.
   */
  longestStallSeconds(from: number, until: number): number {
    const end = this.endedAt ?? until;
    const marks = [from, ...this.progressAt.filter((t) => t > from && t < end), end];
    let longest = 0;
    for (let i = 1; i < marks.length; i++) longest = Math.max(longest, marks[i] - marks[i - 1]);
    return Math.round(longest / 100) / 10;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.polling;
  }
}
