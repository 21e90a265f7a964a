import { useState } from 'react';
import type { CostAccuracyDto, LeaderboardRowDto, ModelPauseDto, RunDetailDto, VerdictCategory } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { exLabel, int, ms, pct, pValue, shortId, signedPp, usd, when } from '../lib/format';
import { href } from '../lib/router';
import { ParetoScatter } from '../components/charts';
import { RunActions } from '../components/RunActions';
import { RunCost } from '../components/RunCost';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';
import '../components/actions.css';
import { RunProgress } from './RunsPage';

/** A run: its actions, its progress while it runs, the leaderboard of its variants, what it cost and saved. */
export function RunPage({ runId }: { runId: string }) {
  const detail = useApi<RunDetailDto>(`/runs/${runId}`, {}, { refreshMs: 2000, keepPolling: (d) => d.run.status === 'running' });
  return (
    <Status loaded={detail}>
      {(d) => (
        <section>
          <h1>Run {shortId(d.run.id)} <span className="muted">· {d.run.sweepName}</span> <Simulated on={d.run.simulated} /></h1>
          <p className="facts">
            <span className={`status ${d.run.status}`} data-testid="run-status">{d.run.status}</span> · started {when(d.run.createdAt)} · {d.run.itemCount} items × {d.run.variantCount} variants
            · {d.run.stageJobs} stage jobs, {d.run.reusedStages} reused
            · <a href={href(['runs', runId, 'matrix'])} data-testid="matrix-link">items × variants</a>
            · <a href={href(['runs', runId, 'items'])}>item results</a>
            · <a href={href(['runs', runId, 'sweep'])}>parameter sweep</a>
            · <a href={href(['trends'], { sweep: d.run.sweepName })}>trends of “{d.run.sweepName}”</a>
          </p>
          <p className="muted">run id <code data-testid="run-id">{d.run.id}</code></p>
          {d.run.failureReason && <p className="error" data-testid="failure-reason">failed: {d.run.failureReason}</p>}
          <RunActions run={d.run} variants={d.leaderboard.map((r) => ({ variantId: r.variantId, label: r.label }))} onChanged={detail.reload} />
          {d.run.status === 'running' && <PausedModels runId={runId} />}
          {d.run.status === 'running' && <RunProgress detail={d} />}
          <h2>Leaderboard</h2>
          {d.partial && d.leaderboard.length > 0 && (
            <p className="partial-note" data-testid="partial-leaderboard">
              Partial: {int(d.itemsDone)} of {int(d.itemsPlanned)} item results so far{d.run.status === 'running' ? ' — the run is still running; ranks may change' : ` — the run ended ${d.run.status} before scoring every item`}.
            </p>
          )}
          <Leaderboard runId={runId} rows={d.leaderboard} />
          <h2>Cost and reuse</h2>
          <RunCost runId={runId} running={d.run.status === 'running'} />
          <h2>Cost against accuracy</h2>
          <CostAccuracy runId={runId} />
        </section>
      )}
    </Status>
  );
}

/** The run's models paused for their quota, and why: their jobs wait until someone lifts the pause. */
function PausedModels({ runId }: { runId: string }) {
  const paused = useApi<ModelPauseDto[]>('/models/paused', { runId }, { refreshMs: 5000, keepPolling: () => true });
  if (!paused.data?.length) return null;
  return (
    <div className="error" data-testid="paused-models">
      {paused.data.map((p) => (
        <p key={p.model}>
          model <b>{p.model}</b> is paused: {p.reason}. Its jobs wait; once the account has quota again, lift the pause
          with <code>sqlsweep models resume {p.model}</code> (or <code>POST /api/models/{p.model}/resume</code>).
        </p>
      ))}
    </div>
  );
}

const categoryColumns: Array<{ key: VerdictCategory; label: string; title: string }> = [
  { key: 'wrong-result', label: 'wrong result', title: 'the predicted SQL ran and returned a different result' },
  { key: 'sql-error', label: 'SQL error', title: 'the predicted SQL failed to execute (an error or a timeout)' },
  { key: 'no-sql', label: 'no SQL', title: 'the final answer held no SQL (a parse failure)' },
  { key: 'pipeline-error', label: 'pipeline error', title: 'the item could not be scored: a stage failed, or its gold query is invalid' },
];

function Leaderboard({ runId, rows }: { runId: string; rows: LeaderboardRowDto[] }) {
  const [picked, setPicked] = useState<string[]>([]);
  const difficulties = [...new Set(rows.flatMap((r) => r.byDifficulty.map((d) => d.difficulty)))].sort();
  const hasVes = rows.some((r) => r.ves !== null);
  // The API ranks the rows (best EX first) and tests every row against the first.
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));
  if (rows.length === 0) return <p className="muted">No variant has results yet.</p>;
  const best = rows[0];
  const next = rows[1];
  return (
    <div>
      {next && <BestVsNext runId={runId} best={best} next={next} />}
      <table className="grid" data-testid="leaderboard">
        <thead>
          <tr>
            <th>compare</th><th>rank</th><th>variant</th><th>model</th><th>pipeline</th><th className="num">items</th><th className="num">EX % [95 % CI]</th>
            <th className="num" title="EX minus the best variant's over the items both scored, with its 95 % paired bootstrap interval">vs best</th><th>scorer</th>
            <th className="num" title="items whose final answer held no SQL: not correct under EX, counted apart from wrong SQL">parse failures</th>
            {categoryColumns.map((c) => <th key={c.key} className="num" title={c.title}>{c.label}</th>)}
            {hasVes && <th className="num">VES</th>}
            {difficulties.map((d) => <th key={d} className="num">EX {d}</th>)}
            <th className="num">errors</th><th className="num">tokens in</th><th className="num">tokens out</th><th className="num">cost</th>
            <th className="num">cost / correct</th><th className="num">mean latency</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={r.variantId} data-testid="leaderboard-row" data-variant-id={r.variantId} data-tied={r.tiedWithBest ? 'true' : 'false'}>
              <td><input type="checkbox" aria-label={`compare ${r.label}`} checked={picked.includes(r.variantId)} onChange={() => toggle(r.variantId)} /></td>
              <td data-col="rank">{i === 0 ? <span className="rank-best">best</span> : r.tiedWithBest
                ? <span className="rank-tied" title="not significantly different from the best: the 95 % interval of the difference includes zero">tied with best</span>
                : <span className="muted">{i + 1}</span>}</td>
              <td>{r.label} <Simulated on={r.simulated} /></td>
              <td>{r.model}</td>
              <td>{r.pipeline}</td>
              <td className="num" data-col="items">{r.items}</td>
              <td className="num"><span className="strong" data-col="ex">{pct(r.ex)}</span> <span className="ex-interval" data-col="ex-interval">[{r.exInterval.low.toFixed(1)}, {r.exInterval.high.toFixed(1)}]</span></td>
              <td className="num" data-col="vs-best">{r.vsBest
                ? <a href={compareHref(runId, best, r)} title={`McNemar p = ${pValue(r.vsBest.pValue)} over ${r.vsBest.pairedItems} paired items`}>{signedPp(r.vsBest.delta)} <span className="ex-interval">[{r.vsBest.low.toFixed(1)}, {r.vsBest.high.toFixed(1)}]</span></a>
                : '–'}</td>
              <td className="muted" data-col="scorer" title="the named scorer and version that gave the verdicts">{r.scorer ?? '–'}</td>
              <td className="num" data-col="parse-failures">{r.parseFailures}</td>
              {categoryColumns.map((c) => <td key={c.key} className="num" data-col={`cat-${c.key}`}><a href={href(['runs', runId, 'items'], { variantId: r.variantId, category: c.key })} title={`items of ${r.label}: ${c.label}`}>{r.categories[c.key] ?? 0}</a></td>)}
              {hasVes && <td className="num" data-col="ves">{pct(r.ves)}</td>}
              {difficulties.map((d) => {
                const s = r.byDifficulty.find((x) => x.difficulty === d);
                return <td key={d} className="num" data-col={`ex-${d}`} title={s ? `${s.correct}/${s.items}` : ''}>{s ? pct(s.ex) : '–'}</td>;
              })}
              <td className="num" data-col="errors">{r.errors}</td>
              <td className="num" data-col="input-tokens">{int(r.inputTokens)}</td>
              <td className="num" data-col="output-tokens">{int(r.outputTokens)}</td>
              <td className="num" data-col="cost">{usd(r.costUsd)}</td>
              <td className="num" data-col="cost-per-correct">{usd(r.costPerCorrectUsd)}</td>
              <td className="num" data-col="latency">{ms(r.meanLatencyMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        {picked.length === 2
          ? <a className="button" data-testid="compare-link" href={href(['compare'], { runA: runId, variantA: picked[0], runB: runId, variantB: picked[1] })}>Compare the two picked variants</a>
          : <span className="muted">Pick two variants to compare them (A = first picked).</span>}
        {' '}<a href={href(['compare'], { runA: runId })}>compare with another run…</a>
      </p>
    </div>
  );
}

/** A = the challenger, B = the best: the delta reads "how much better the best is". */
function compareHref(runId: string, best: LeaderboardRowDto, other: LeaderboardRowDto): string {
  return href(['compare'], { runA: runId, variantA: other.variantId, runB: runId, variantB: best.variantId });
}

/** The answer to "which variant is best, and is it significantly better than the next?" above the table. */
function BestVsNext({ runId, best, next }: { runId: string; best: LeaderboardRowDto; next: LeaderboardRowDto }) {
  const v = next.vsBest;
  const gap = v ? -v.delta : best.ex - next.ex;
  return (
    <p className="headline best-vs-next" data-testid="best-vs-next">
      <span>Best: <b>{best.label}</b> at {pct(best.ex)} % EX. Next: <b>{next.label}</b> at {pct(next.ex)} %,
        {' '}<span data-testid="best-vs-next-delta">{signedPp(gap)}</span> behind
        {v && <> (95 % paired interval of best − next <span data-testid="best-vs-next-interval">[{(-v.high).toFixed(2)}, {(-v.low).toFixed(2)}]</span>, McNemar p = {pValue(v.pValue)})</>}:
        {' '}<b data-testid="best-vs-next-verdict">{next.tiedWithBest ? 'not significantly different: tied (the interval includes 0)' : 'the best is significantly better (the interval excludes 0)'}</b>.
      </span>
      {' '}<a data-testid="best-vs-next-compare" href={compareHref(runId, best, next)}>full comparison →</a>
    </p>
  );
}

function CostAccuracy({ runId }: { runId: string }) {
  const ca = useApi<CostAccuracyDto>(`/runs/${runId}/cost-accuracy`);
  return (
    <Status loaded={ca}>
      {(d) => (
        <div className="chart-box">
          <ParetoScatter xLabel="cost (USD)" yLabel={exLabel(d.points.map((p) => p.scorer))} xFmt={(v) => `$${v.toFixed(3)}`}
            points={d.points.map((p) => ({ id: p.variantId, label: p.label, x: p.costUsd, y: p.ex, highlight: p.pareto }))} />
          <p className="muted">Larger dots joined by the line are the Pareto front: no other variant is at least as accurate for less.</p>
          {d.points.some((p) => p.simulated) && <Simulated on />}
        </div>
      )}
    </Status>
  );
}
