import type { PairedItemRow, ScheduledRunToCheck, ScheduleRepository, StageChangeRow } from '@sqlsweep/db';
import { mcnemar, pairedBootstrap } from '../compare/statistics';

export interface VariantComparison {
  variantKey: string; label: string; pairedItems: number;
  exPrevious: number; exCurrent: number;
  /** EX(current) - EX(previous) in percentage points, with its paired bootstrap interval. */
  delta: number; low: number; high: number; confidence: number;
  mcnemarP: number; flippedToWrong: number; flippedToRight: number;
  regressed: boolean;
  /** The named scorer(s) of each night's verdicts (`bird-ex@2`, comma-separated if several); null when none names one. */
  scorerPrevious: string | null; scorerCurrent: string | null;
}

export interface RegressionCheck {
  runId: string; schedule: string; firedAt: string; previousRunId: string | null;
  simulated: boolean; regressed: boolean;
  variants: VariantComparison[];
  /** Stages whose stored outputs differ between the two runs on paired items. */
  changedStages: StageChangeRow[];
}

/** The JSON posted to the webhook and stored with the alert. */
export interface RegressionAlertPayload extends RegressionCheck { type: 'regression'; previousFiredAt: string | null; text: string }

export interface RegressionCheckerOptions {
  schedules: ScheduleRepository;
  webhookUrl?: string;
  resamples?: number;
  confidence?: number;
  /** How long a failed delivery waits before it is tried again. */
  retryDelayMs?: number;
  webhookTimeoutMs?: number;
  log?: (line: Record<string, unknown>) => void;
}

const scorersOf = (names: Array<string | null>): string | null => [...new Set(names.filter((n) => n !== null))].sort().join(',') || null;

function compareVariant(key: string, rows: PairedItemRow[], resamples: number, confidence: number): VariantComparison {
  const pairs = rows.map((r) => ({ itemId: r.itemId, a: r.a, b: r.b }));
  // Seeded by nothing but the data, so a check recomputed later gives the same interval.
  const boot = pairedBootstrap(pairs, { resamples, confidence, seed: pairs.length });
  const test = mcnemar(pairs);
  return {
    variantKey: key, label: rows[0].label, pairedItems: pairs.length,
    exPrevious: (100 * pairs.filter((p) => p.a).length) / pairs.length,
    exCurrent: (100 * pairs.filter((p) => p.b).length) / pairs.length,
    delta: boot.delta, low: boot.low, high: boot.high, confidence,
    mcnemarP: test.pValue, flippedToWrong: test.onlyA, flippedToRight: test.onlyB,
    regressed: boot.high < 0,
    scorerPrevious: scorersOf(rows.map((r) => r.scorerA)), scorerCurrent: scorersOf(rows.map((r) => r.scorerB)),
  };
}

/** Which scorer the EX figures come from, or that it changed between the nights (then the drop may be the scorer's). */
function scorerNote(v: VariantComparison): string {
  if (v.scorerPrevious === v.scorerCurrent) return `scored by ${v.scorerPrevious ?? 'no named scorer'}`;
  return `scorer changed from ${v.scorerPrevious ?? 'none named'} to ${v.scorerCurrent ?? 'none named'}, so the drop may come from the scorer`;
}

function alertText(check: RegressionCheck): string {
  const worse = check.variants.filter((v) => v.regressed)
    .map((v) => `${v.label}: EX ${v.exPrevious.toFixed(1)} -> ${v.exCurrent.toFixed(1)} (${v.delta.toFixed(1)} pp, ${Math.round(100 * v.confidence)}% CI ${v.low.toFixed(1)}..${v.high.toFixed(1)}; ${scorerNote(v)})`);
  const stages = check.changedStages.filter((s) => s.changed > 0).map((s) => `${s.stage} (${s.changed}/${s.compared})`);
  return `Regression in schedule ${check.schedule}, run ${check.runId}${check.simulated ? ' [simulated]' : ''}: ${worse.join('; ')}.` +
    ` Stages whose outputs changed: ${stages.length ? stages.join(', ') : 'none'}.`;
}

/**
 * After a scheduled run finishes, compares it with the previous finished run of its schedule on the paired items
 * (same variant key, same item id). A variant regressed when its EX drop's bootstrap interval lies below zero;
 * then an alert is stored and posted to the webhook. Idempotent: each run is checked once, each alert delivered
 * until the webhook accepts it.
 */
export class RegressionChecker {
  private readonly resamples: number;
  private readonly confidence: number;

  constructor(private readonly opts: RegressionCheckerOptions) {
    this.resamples = opts.resamples ?? 10_000;
    this.confidence = opts.confidence ?? 0.95;
  }

  /** Checks every finished scheduled run that has no check yet, then delivers pending alerts. */
  async tick(): Promise<{ checked: RegressionCheck[]; delivered: number }> {
    const checked: RegressionCheck[] = [];
    for (const run of await this.opts.schedules.finishedRunsWithoutCheck()) {
      const check = await this.check(run);
      if (check) checked.push(check);
    }
    return { checked, delivered: await this.deliverAlerts() };
  }

  /** Stores the check of one finished run (and its alert when it regressed); undefined if already stored. */
  async check(run: ScheduledRunToCheck): Promise<RegressionCheck | undefined> {
    const previous = await this.opts.schedules.previousFinishedRun(run.schedule, run.firedAt);
    const check: RegressionCheck = {
      runId: run.runId, schedule: run.schedule, firedAt: run.firedAt.toISOString(), previousRunId: previous?.runId ?? null,
      simulated: run.simulated, regressed: false, variants: [], changedStages: [],
    };
    if (previous) {
      const byVariant = new Map<string, PairedItemRow[]>();
      for (const row of await this.opts.schedules.pairedItems(previous.runId, run.runId)) {
        byVariant.set(row.variantKey, [...(byVariant.get(row.variantKey) ?? []), row]);
      }
      check.variants = [...byVariant].map(([key, rows]) => compareVariant(key, rows, this.resamples, this.confidence));
      check.changedStages = await this.opts.schedules.stageChanges(previous.runId, run.runId);
      check.regressed = check.variants.some((v) => v.regressed);
    }
    const alert: RegressionAlertPayload | undefined = check.regressed
      ? { type: 'regression', ...check, previousFiredAt: previous?.firedAt.toISOString() ?? null, text: alertText(check) }
      : undefined;
    const stored = await this.opts.schedules.storeCheck(
      { runId: check.runId, schedule: check.schedule, previousRunId: check.previousRunId, regressed: check.regressed, variants: check.variants, changedStages: check.changedStages },
      alert && { payload: alert, webhookUrl: this.opts.webhookUrl ?? null },
    );
    if (stored) this.opts.log?.({ msg: check.regressed ? 'regression found' : 'scheduled run checked', schedule: run.schedule, runId: run.runId, previousRunId: check.previousRunId });
    return stored ? check : undefined;
  }

  /** Posts leased undelivered alerts; a non-2xx answer or a network error is retried on a later tick. */
  async deliverAlerts(): Promise<number> {
    const retryDelayMs = this.opts.retryDelayMs ?? 30_000;
    let delivered = 0;
    for (const alert of await this.opts.schedules.leaseUndeliveredAlerts(retryDelayMs + (this.opts.webhookTimeoutMs ?? 10_000))) {
      try {
        const res = await fetch(alert.webhookUrl!, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alert.payload),
          signal: AbortSignal.timeout(this.opts.webhookTimeoutMs ?? 10_000),
        });
        if (!res.ok) throw new Error(`webhook answered ${res.status} ${res.statusText}`);
        await this.opts.schedules.markDelivered(alert.id);
        delivered++;
      } catch (e) {
        const error = `POST ${alert.webhookUrl}: ${(e as Error).message}`;
        await this.opts.schedules.markDeliveryFailed(alert.id, error, retryDelayMs);
        this.opts.log?.({ msg: 'alert delivery failed', alertId: alert.id, attempts: alert.attempts, error });
      }
    }
    return delivered;
  }
}
