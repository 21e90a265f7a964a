import { useApi } from '../lib/api';
import { signedPp } from '../lib/format';
import { href } from '../lib/router';
import { Status } from './Status';

// GET /schedules/{name}/runs/{runId}/check (libs/orchestration's RegressionDetail; described loosely by the API).
interface ChangedItem { itemId: string; variantKey: string; label: string; variantId: string; previousVariantId: string }
interface RegressionDetail {
  runId: string; previousRunId: string | null; regressed: boolean;
  variants: Array<{
    variantKey: string; label: string; pairedItems: number; exPrevious: number; exCurrent: number; delta: number; low: number; high: number; regressed: boolean;
    flippedToWrongItems: string[]; flippedToRightItems: string[];
    compare: { runA: string; variantA: string; runB: string; variantB: string } | null;
  }>;
  changedStages: Array<{ stage: string; compared: number; changed: number; items: ChangedItem[] }>;
}

/** What a regression check found: per regressed variant its flipped items and the comparison of the two nights; per stage, what changed. */
export function RegressionDetailView({ schedule, runId }: { schedule: string; runId: string }) {
  const detail = useApi<RegressionDetail>(`/schedules/${encodeURIComponent(schedule)}/runs/${runId}/check`);
  return (
    <Status loaded={detail}>
      {(d) => (
        <div className="regression-detail" data-testid="regression-detail" data-run-id={d.runId}>
          {d.variants.filter((v) => v.regressed).map((v) => (
            <div key={v.variantKey} className="regressed-variant" data-testid="regressed-variant" data-variant-key={v.variantKey}>
              <h3>{v.label}: EX {v.exPrevious.toFixed(2)} → {v.exCurrent.toFixed(2)} ({signedPp(v.delta)}, 95 % [{v.low.toFixed(2)}, {v.high.toFixed(2)}])
                {v.compare && <> · <a data-testid="compare-nights" href={href(['compare'], v.compare)}>compare the two nights</a></>}</h3>
              <p>
                Right the night before, wrong now ({v.flippedToWrongItems.length}):{' '}
                <span data-testid="flipped-items">
                  {v.flippedToWrongItems.map((id, i) => (
                    <span key={id}>{i > 0 && ', '}<a data-testid="flipped-item" href={v.compare ? href(['runs', v.compare.runB, 'items', id], { variant: v.compare.variantB }) : href(['runs', d.runId, 'items', id])}>{id}</a></span>
                  ))}
                </span>
                {v.flippedToRightItems.length > 0 && <span className="muted"> · wrong before, right now: {v.flippedToRightItems.length}</span>}
              </p>
            </div>
          ))}
          <h3>Stages whose outputs changed</h3>
          {d.changedStages.length === 0 ? <p className="muted">No stage output changed between the two nights.</p> : (
            <div className="table-wrap">
              <table className="grid" data-testid="changed-stages">
                <thead><tr><th>stage</th><th className="num">changed</th><th className="num">compared</th><th>items whose output changed</th></tr></thead>
                <tbody>
                  {d.changedStages.map((s) => (
                    <tr key={s.stage} data-testid="changed-stage" data-stage={s.stage} data-changed={s.changed}>
                      <td>{s.stage}</td><td className="num">{s.changed}</td><td className="num">{s.compared}</td>
                      <td>
                        <details>
                          <summary>{s.items.length < s.changed ? `first ${s.items.length} of ${s.changed}` : `${s.changed} item${s.changed === 1 ? '' : 's'}`}</summary>
                          {s.items.map((x, i) => (
                            <span key={`${x.variantId}/${x.itemId}`}>{i > 0 && ', '}<a href={href(['runs', d.runId, 'items', x.itemId], { variant: x.variantId })} title={x.label}>{x.itemId}</a></span>
                          ))}
                        </details>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      )}
    </Status>
  );
}
