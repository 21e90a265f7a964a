import { useApi } from '../lib/api';
import { exLabel, pct, signedPp, when } from '../lib/format';
import { href } from '../lib/router';
import { LinePlot } from '../components/charts';
import { Id } from '../components/Id';
import { RegressionDetailView } from '../components/RegressionDetail';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';

// The API describes schedule rows loosely (z.record); these are the fields the schedules module returns.
interface StoredVariantCheck {
  variantKey: string; label: string; delta: number; low: number; high: number; regressed: boolean; pairedItems: number;
  /** Absent in checks stored before scorers were named. */
  scorerPrevious?: string | null; scorerCurrent?: string | null;
}
interface ScheduleRun {
  runId: string; firedAt: string; status: string; simulated: boolean; regressed: boolean | null; previousRunId: string | null;
  variants: StoredVariantCheck[] | null;
  summaries: { variantKey: string; label: string; items: number; correct: number; ex: number; scorer: string | null }[];
}
interface Alert { id: number; runId: string; schedule: string; payload: { text?: string }; deliveredAt: string | null; attempts: number; lastError: string | null; createdAt: string }

const scorerChanged = (c: StoredVariantCheck): boolean =>
  c.scorerPrevious !== undefined && c.scorerCurrent !== undefined && c.scorerPrevious !== c.scorerCurrent;

/** A schedule's nightly runs as the regression checker stored them: EX per variant, checked nights marked. */
export function ScheduleTrend({ name }: { name: string }) {
  const runs = useApi<ScheduleRun[]>(`/schedules/${encodeURIComponent(name)}/runs`, { limit: 200 });
  const alerts = useApi<Alert[]>('/alerts', { schedule: name, limit: 50 });
  return (
    <Status loaded={runs}>
      {(list) => {
        const nights = [...list].sort((a, b) => Date.parse(a.firedAt) - Date.parse(b.firedAt));
        const keys = [...new Set(nights.flatMap((n) => n.summaries.map((s) => s.variantKey)))];
        const checkOf = (n: ScheduleRun, key: string) => n.variants?.find((v) => v.variantKey === key);
        const series = keys.map((key) => ({
          name: nights.flatMap((n) => n.summaries).find((s) => s.variantKey === key)!.label,
          points: nights.flatMap((n) => n.summaries.filter((s) => s.variantKey === key).map((s) => ({
            x: Date.parse(n.firedAt), y: s.ex, marked: checkOf(n, key)?.regressed === true, title: `${when(n.firedAt)} ${s.label}: EX ${pct(s.ex)} (${s.scorer ?? 'no scorer recorded'})`,
          }))),
        }));
        if (nights.length === 0) return <p className="muted">Schedule “{name}” has not fired yet.</p>;
        return (
          <div className="chart-box" data-testid="schedule-trend">
            <LinePlot series={series} xLabel="fired at" yLabel={exLabel(nights.flatMap((n) => n.summaries.map((s) => s.scorer)))} xFmt={(t) => new Date(t).toISOString().slice(5, 16).replace('T', ' ')} />
            {nights.some((n) => n.simulated) && <Simulated on />}
            <h2>Regression alerts</h2>
            <Status loaded={alerts}>
              {(a) => a.length === 0 ? <p className="muted">None.</p> : (
                <ul data-testid="alerts" className="alerts">
                  {a.map((x, i) => (
                    <li key={x.id} className="regression" data-testid="alert" data-run-id={x.runId}>
                      <details open={i === 0}>
                        <summary>
                          {when(x.createdAt)} · run <Id id={x.runId} href={href(['runs', x.runId])} /> · {x.payload.text ?? 'regression'}
                          <span className="muted"> · {x.deliveredAt ? `delivered ${when(x.deliveredAt)}` : `not delivered yet (${x.attempts} attempts${x.lastError ? `: ${x.lastError}` : ''})`}</span>
                        </summary>
                        <RegressionDetailView schedule={name} runId={x.runId} />
                      </details>
                    </li>
                  ))}
                </ul>
              )}
            </Status>
            <table className="grid">
              <thead><tr><th>run</th><th>fired</th><th>status</th><th>variant</th><th className="num">EX %</th><th>scorer</th><th className="num">vs previous night</th><th>interval</th></tr></thead>
              <tbody>
                {nights.flatMap((n) => n.summaries.map((s) => {
                  const c = checkOf(n, s.variantKey);
                  return (
                    <tr key={`${n.runId}/${s.variantKey}`} className={c?.regressed ? 'regression' : ''} data-testid="schedule-row" data-run-id={n.runId}>
                      <td><Id id={n.runId} href={href(['runs', n.runId])} /></td><td>{when(n.firedAt)}</td><td>{n.status}</td><td>{s.label}</td>
                      <td className="num" data-col="ex">{pct(s.ex)}</td>
                      <td className="muted" data-col="scorer">{s.scorer ?? '–'}</td>
                      <td className="num" data-col="delta">{c ? signedPp(c.delta) : '–'}{c && scorerChanged(c) ? ` (scorer changed from ${c.scorerPrevious ?? 'none named'})` : ''}</td>
                      <td>{c ? `[${c.low.toFixed(2)}, ${c.high.toFixed(2)}]${c.regressed ? ' regression' : ''}` : '–'}</td>
                    </tr>
                  );
                }))}
              </tbody>
            </table>
          </div>
        );
      }}
    </Status>
  );
}
