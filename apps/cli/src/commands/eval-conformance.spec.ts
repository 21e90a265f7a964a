import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BIRD_EMPTY_CASES, CONFORMANCE_CASES as CASES, SCORERS, SandboxPool, makeConformanceDatabases } from '@sqlsweep/sql-sandbox';
import { runEval, type EvalSummary } from './eval';

// The conformance fixtures of libs/sql-sandbox/src/conformance: every scorer's expected verdict on every case.
// Every scorer runs in one sandbox pool (its standby child replaces the ones killed by the timeout cases at once).
describe('eval conformance fixtures', () => {
  const timeoutMs = 1500;
  let dir: string;
  let dbDir: string;
  let pool: SandboxPool;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-conformance-'));
    dbDir = makeConformanceDatabases(join(dir, 'db'));
    pool = new SandboxPool({ size: 2, deadlineMs: timeoutMs });
  });
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const birdPredFile = (file: string, preds: Array<string | null>, order = preds.map((_, i) => i)) => {
    const entries = order.map((i) => `"${i}": ${JSON.stringify(preds[i] === null ? null : `${preds[i]}\t----- bird -----\tshop`)}`);
    writeFileSync(file, `{${entries.join(', ')}}`);
  };

  async function run(scorerId: string, cases: Array<{ gold: string; pred: string | null }>, tag: string): Promise<EvalSummary> {
    const scorer = SCORERS.find((s) => s.id === scorerId)!;
    const gold = join(dir, `${tag}-gold.sql`);
    writeFileSync(gold, cases.map((c) => `${c.gold}\tshop`).join('\n') + '\n');
    const pred = join(dir, `${tag}-pred`);
    if (scorer.format === 'spider') writeFileSync(pred, cases.map((c) => c.pred ?? '').join('\n') + '\n');
    else birdPredFile(pred, cases.map((c) => c.pred));
    return runEval({
      format: scorer.format, dbDir, gold, pred, metric: scorer.metric, scorer: scorerId, workers: 2, timeoutMs, vesIterations: 1,
    }, pool);
  }

  const scorerIds = [...new Set(CASES.flatMap((c) => Object.keys(c.expect)))];

  it.each(scorerIds)('%s gives every expected verdict, and flags exactly the expected items divergent', async (scorerId) => {
    const mine = CASES.filter((c) => c.expect[scorerId] !== undefined);
    const summary = await run(scorerId, mine, scorerId.replace(/[@.]/g, '_'));
    const got = summary.items.map((it, k) => ({
      case: mine[k].name,
      verdict: summary.metric === 'soft-f1' ? Math.round(it.score * 1000) / 1000 : it.exec,
      divergent: it.divergent !== undefined,
    }));
    const want = mine.map((c) => ({ case: c.name, verdict: c.expect[scorerId], divergent: (c.divergent ?? []).includes(scorerId) }));
    if (JSON.stringify(got) !== JSON.stringify(want)) console.log(summary.items.map((it) => it.reason + ' ' + (it.pred_message ?? '')).join('\n'));
    expect(got).toEqual(want);
    expect(summary.items.every((it) => it.scorer === scorerId)).toBe(true);
    expect(summary.divergentCount).toBe(want.filter((w) => w.divergent).length);
  }, 60_000);

  it('writes never touch the database files (difference 5)', async () => {
    await run('bird-ex@2', CASES.filter((c) => c.pred.startsWith('DELETE')), 'writes');
    for (const file of ['shop.sqlite', 'shop_variant.sqlite']) {
      const db = new Database(join(dbDir, 'shop', file), { readonly: true });
      expect(db.prepare('SELECT count(*) AS n FROM item').get()).toEqual({ n: 5 });
      db.close();
    }
  });

  it('BIRD: an empty or non-string prediction is an empty result, as Python runs it (difference 4)', async () => {
    const summary = await run('bird-ex@2', BIRD_EMPTY_CASES, 'empty');
    expect(summary.items.map((it) => it.exec)).toEqual(BIRD_EMPTY_CASES.map((c) => c.exec));
    expect(summary.divergentCount).toBe(0);
  });

  it('BIRD: prediction keys out of gold order are paired by key, warned about and flagged divergent', async () => {
    const gold = join(dir, 'order-gold.sql');
    writeFileSync(gold, 'SELECT 1\tshop\nSELECT 2\tshop\nSELECT 3\tshop\n');
    const pred = join(dir, 'order-pred.json');
    birdPredFile(pred, ['SELECT 1', 'SELECT 2', 'SELECT 3'], [1, 0, 2]);
    const summary = await runEval({ format: 'bird', dbDir, gold, pred, metric: 'ex', workers: 1, timeoutMs: 5000, vesIterations: 1 }, pool);
    expect(summary.items.map((it) => it.exec)).toEqual([1, 1, 1]);
    expect(summary.items.map((it) => it.divergent !== undefined)).toEqual([true, true, false]);
    expect(summary.warnings.join('\n')).toContain('2 key(s) not in gold order');
  });
});
