import { useState } from 'react';
import type { CostAccuracyDto, LeaderboardRowDto, ModelPauseDto, RunDetailDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { exLabel, int, ms, pct, shortId, usd, when } from '../lib/format';
import { href } from '../lib/router';
import { ParetoScatter } from '../components/charts';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';
import { RunProgress } from './RunsPage';

/** A run: its progress while it runs, the leaderboard of its variants and their cost against accuracy. */
export function RunPage({ runId }: { runId: string }) {
  const detail = useApi<RunDetailDto>(`/runs/${runId}`, {}, { refreshMs: 2000, keepPolling: (d) => d.run.status === 'running' });
  return (
    <Status loaded={detail}>
      {(d) => (
        <section>
          <h1>Run {shortId(d.run.id)} <span className="muted">· {d.run.sweepName}</span> <Simulated on={d.run.simulated} /></h1>
          <p className="facts">
            <span className={`status ${d.run.status}`}>{d.run.status}</span> · started {when(d.run.createdAt)} · {d.run.itemCount} items × {d.run.variantCount} variants
            · {d.run.stageJobs} stage jobs, {d.run.reusedStages} reused
            · <a href={href(['runs', runId, 'items'])}>item results</a>
            · <a href={href(['runs', runId, 'sweep'])}>parameter sweep</a>
            · <a href={href(['trends'], { sweep: d.run.sweepName })}>trends of “{d.run.sweepName}”</a>
          </p>
          {d.run.failureReason && <p className="error" data-testid="failure-reason">failed: {d.run.failureReason}</p>}
          {d.run.status === 'running' && <PausedModels runId={runId} />}
          {d.run.status === 'running' && <RunProgress detail={d} />}
          <h2>Leaderboard</h2>
          <Leaderboard runId={runId} rows={d.leaderboard} />
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

function Leaderboard({ runId, rows }: { runId: string; rows: LeaderboardRowDto[] }) {
  const [picked, setPicked] = useState<string[]>([]);
  const difficulties = [...new Set(rows.flatMap((r) => r.byDifficulty.map((d) => d.difficulty)))].sort();
  const hasVes = rows.some((r) => r.ves !== null);
  const sorted = [...rows].sort((a, b) => b.ex - a.ex);
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));
  if (rows.length === 0) return <p className="muted">No variant has results yet.</p>;
  return (
    <div>
      <table className="grid" data-testid="leaderboard">
        <thead>
          <tr>
            <th>compare</th><th>variant</th><th>model</th><th>pipeline</th><th className="num">items</th><th className="num">EX %</th><th>scorer</th>
            <th className="num" title="items whose final answer held no SQL: not correct under EX, counted apart from wrong SQL">parse failures</th>
            {hasVes && <th className="num">VES</th>}
            {difficulties.map((d) => <th key={d} className="num">EX {d}</th>)}
            <th className="num">errors</th><th className="num">tokens in</th><th className="num">tokens out</th><th className="num">cost</th>
            <th className="num">cost / correct</th><th className="num">mean latency</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((r) => (
            <tr key={r.variantId} data-testid="leaderboard-row" data-variant-id={r.variantId}>
              <td><input type="checkbox" aria-label={`compare ${r.label}`} checked={picked.includes(r.variantId)} onChange={() => toggle(r.variantId)} /></td>
              <td>{r.label} <Simulated on={r.simulated} /></td>
              <td>{r.model}</td>
              <td>{r.pipeline}</td>
              <td className="num" data-col="items">{r.items}</td>
              <td className="num strong" data-col="ex">{pct(r.ex)}</td>
              <td className="muted" data-col="scorer" title="the named scorer and version that gave the verdicts">{r.scorer ?? '–'}</td>
              <td className="num" data-col="parse-failures">{r.parseFailures}</td>
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
