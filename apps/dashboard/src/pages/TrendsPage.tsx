import { useEffect, useState } from 'react';
import type { ComparisonDto, LeaderboardRowDto, RunSummaryDto, SweepSummaryDto } from '@sqlsweep/contracts';
import { getJson, useApi } from '../lib/api';
import { exLabel, pct, signedPp, when } from '../lib/format';
import { href, type Route } from '../lib/router';
import { LinePlot } from '../components/charts';
import { Id } from '../components/Id';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';
import { ScheduleTrend } from './ScheduleTrend';

interface TrendPoint {
  run: RunSummaryDto;
  row: LeaderboardRowDto;
  /** Against the previous finished run of the same variant key; a regression when the interval lies below zero. */
  vsPrevious: ComparisonDto | null;
}

/**
 * Trends of a schedule (its nightly runs and the regression checks and alerts stored for them) or of a sweep name
 * (its finished runs, each compared with the one before through /compare); a run is marked as a regression when
 * its paired bootstrap interval against the previous one lies wholly below zero.
 */
export function TrendsPage({ route }: { route: Route }) {
  const sweeps = useApi<SweepSummaryDto[]>('/sweeps', { limit: 1000 });
  // 503 when the orchestrator runs no schedules: then only sweeps are offered.
  const schedules = useApi<{ name: string }[]>('/schedules');
  const scheduleNames = (schedules.data ?? []).map((s) => s.name).sort();
  const names = [...new Set(sweeps.data?.map((s) => s.name) ?? [])].sort();
  const schedule = route.query.get('schedule') ?? (route.query.get('sweep') ? undefined : scheduleNames[0]);
  const name = schedule ? undefined : (route.query.get('sweep') ?? names[0]);
  const value = schedule ? `schedule:${schedule}` : name ? `sweep:${name}` : '';
  const pick = (v: string) => {
    const [kind, n] = [v.slice(0, v.indexOf(':')), v.slice(v.indexOf(':') + 1)];
    window.location.hash = href(['trends'], kind === 'schedule' ? { schedule: n } : { sweep: n });
  };
  return (
    <section>
      <h1>Trends</h1>
      <label>schedule or sweep{' '}
        <select aria-label="trend" value={value} onChange={(e) => pick(e.target.value)}>
          {scheduleNames.length > 0 && <optgroup label="schedules">{scheduleNames.map((n) => <option key={n} value={`schedule:${n}`}>{n}</option>)}</optgroup>}
          <optgroup label="sweeps">{names.map((n) => <option key={n} value={`sweep:${n}`}>{n}</option>)}</optgroup>
        </select>
      </label>
      {schedule ? <ScheduleTrend name={schedule} /> : (
        <Status loaded={sweeps}>
          {(list) => (name ? <Trend name={name} sweepIds={list.filter((s) => s.name === name).map((s) => s.id)} /> : <p className="muted">No sweeps yet.</p>)}
        </Status>
      )}
    </section>
  );
}

function Trend({ name, sweepIds }: { name: string; sweepIds: string[] }) {
  const [nightlyOnly, setNightlyOnly] = useState(true);
  const [loaded, setLoaded] = useState<{ points: TrendPoint[]; hasNightly: boolean } | undefined>();
  const [error, setError] = useState<Error | undefined>();
  useEffect(() => {
    let live = true;
    setLoaded(undefined);
    loadTrend(sweepIds, nightlyOnly).then((p) => live && setLoaded(p), (e: unknown) => live && setError(e as Error));
    return () => { live = false; };
  }, [sweepIds.join(','), nightlyOnly]);
  if (error) return <div className="error" role="alert">API error: {error.message}</div>;
  if (!loaded) return <div className="loading">loading…</div>;
  const { points, hasNightly } = loaded;
  const toggle = (
    <label className="muted">
      <input type="checkbox" checked={nightlyOnly && hasNightly} disabled={!hasNightly} onChange={(e) => setNightlyOnly(e.target.checked)} />
      {' '}scheduled (nightly) runs only{hasNightly ? '' : ' — none yet, showing every run'}
    </label>
  );
  if (points.length === 0) return <p className="muted">No finished run of “{name}” yet.</p>;
  const keys = [...new Set(points.map((p) => p.row.variantKey))];
  const series = keys.map((k) => {
    const mine = points.filter((p) => p.row.variantKey === k);
    return {
      name: mine[mine.length - 1].row.label,
      points: mine.map((p) => ({
        x: Date.parse(p.run.createdAt), y: p.row.ex, marked: isRegression(p),
        title: `${when(p.run.createdAt)} ${p.row.label}: EX ${pct(p.row.ex)}${p.vsPrevious ? ` (${signedPp(p.vsPrevious.delta)})` : ''}`,
      })),
    };
  });
  const regressions = points.filter(isRegression);
  return (
    <div className="chart-box" data-testid="trend">
      {toggle}
      <LinePlot series={series} xLabel="run start" yLabel={exLabel(points.map((p) => p.row.scorer))} xFmt={(t) => new Date(t).toISOString().slice(5, 16).replace('T', ' ')} />
      {points.some((p) => p.row.simulated) && <Simulated on />}
      <h2>Regressions ({regressions.length})</h2>
      {regressions.length === 0 ? <p className="muted">No night whose interval against the night before excludes zero on the low side.</p> : (
        <ul data-testid="regressions">
          {regressions.map((p) => (
            <li key={`${p.run.id}/${p.row.variantId}`} className="regression" data-testid="regression" data-run-id={p.run.id} data-variant-id={p.row.variantId}>
              {when(p.run.createdAt)} · {p.row.label}: {signedPp(p.vsPrevious!.delta)} [{p.vsPrevious!.interval.low.toFixed(2)}, {p.vsPrevious!.interval.high.toFixed(2)}]{' '}
              <a href={href(['compare'], { runA: p.vsPrevious!.a.runId, variantA: p.vsPrevious!.a.variantId, runB: p.run.id, variantB: p.row.variantId })}>compare</a>
            </li>
          ))}
        </ul>
      )}
      <table className="grid">
        <thead><tr><th>run</th><th>started</th><th>variant</th><th className="num">EX %</th><th>scorer</th><th className="num">vs previous</th><th>interval</th></tr></thead>
        <tbody>
          {points.map((p) => (
            <tr key={`${p.run.id}/${p.row.variantId}`} className={isRegression(p) ? 'regression' : ''} data-testid="trend-row" data-run-id={p.run.id} data-variant-id={p.row.variantId}>
              <td><Id id={p.run.id} href={href(['runs', p.run.id])} /></td><td>{when(p.run.createdAt)}</td><td>{p.row.label}</td>
              <td className="num" data-col="ex">{pct(p.row.ex)}</td>
              <td className="muted" data-col="scorer">{p.row.scorer ?? '–'}</td>
              <td className="num" data-col="delta" title={p.vsPrevious?.scorerWarning ?? undefined}>{p.vsPrevious ? signedPp(p.vsPrevious.delta) : '–'}{p.vsPrevious?.scorerWarning ? ' (scorer changed)' : ''}</td>
              <td>{p.vsPrevious ? `[${p.vsPrevious.interval.low.toFixed(2)}, ${p.vsPrevious.interval.high.toFixed(2)}]` : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const isRegression = (p: TrendPoint) => p.vsPrevious !== null && p.vsPrevious.interval.high < 0;

/** Scheduled runs carry priority `nightly`; when a sweep has none, every finished run of it is shown. */
async function loadTrend(sweepIds: string[], nightlyOnly: boolean): Promise<{ points: TrendPoint[]; hasNightly: boolean }> {
  const finished = (await Promise.all(sweepIds.map((id) => getJson<RunSummaryDto[]>('/runs', { sweepId: id, status: 'done', limit: 500 })))).flat()
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
  const hasNightly = finished.some((r) => r.priority === 'nightly');
  const runs = nightlyOnly && hasNightly ? finished.filter((r) => r.priority === 'nightly') : finished;
  const boards = await Promise.all(runs.map((r) => getJson<LeaderboardRowDto[]>(`/runs/${r.id}/leaderboard`)));
  const points: TrendPoint[] = [];
  const previous = new Map<string, TrendPoint>();
  for (const [i, run] of runs.entries()) {
    for (const row of boards[i]) {
      const prev = previous.get(row.variantKey);
      const vsPrevious = prev
        ? await getJson<ComparisonDto>('/compare', { runA: prev.run.id, variantA: prev.row.variantId, runB: run.id, variantB: row.variantId })
        : null;
      const point = { run, row, vsPrevious };
      points.push(point);
      previous.set(row.variantKey, point);
    }
  }
  return { points, hasNightly };
}
