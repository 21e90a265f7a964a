import type { ItemMatrixDto, MatrixMode } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { href, type Route } from '../lib/router';
import { Id } from '../components/Id';
import { Status } from '../components/Status';
import { categoryText } from '../components/Verdict';

const modes: Array<{ key: MatrixMode; label: string; title: string }> = [
  { key: 'all', label: 'all items', title: 'every item of the run' },
  { key: 'failures', label: 'failures', title: 'items some variant did not get right' },
  { key: 'sql-errors', label: 'SQL errors', title: 'items where some variant’s SQL failed to execute' },
  { key: 'disagree', label: 'variants disagree', title: 'items right under one variant and not under another' },
];
const pageSize = 50;

/** Items × variants: the question in the row, one cell per variant with its verdict (SQL on hover); a cell opens that variant's trace. */
export function MatrixPage({ runId, route }: { runId: string; route: Route }) {
  const mode = (modes.find((m) => m.key === route.query.get('mode'))?.key ?? 'failures');
  const q = route.query.get('q') ?? undefined;
  const offset = Number(route.query.get('offset') ?? 0) || 0;
  const matrix = useApi<ItemMatrixDto>(`/runs/${runId}/matrix`, { mode, q, offset, limit: pageSize });
  const go = (patch: Record<string, string | number | undefined>) => {
    window.location.hash = href(['runs', runId, 'matrix'], { mode, q, ...patch });
  };
  return (
    <section>
      <h1>Items × variants <span className="muted">· run <Id id={runId} href={href(['runs', runId])} /></span></h1>
      <Status loaded={matrix}>
        {(m) => (
          <>
            <div className="tabs" role="group" aria-label="which items">
              {modes.map((x) => (
                <a key={x.key} href={href(['runs', runId, 'matrix'], { mode: x.key, q })} className={x.key === mode ? 'tab active' : 'tab'} aria-current={x.key === mode ? 'page' : undefined}
                  title={x.title} data-testid={`mode-${x.key}`}>{x.label} <span className="count">{m.counts[x.key] ?? 0}</span></a>
              ))}
            </div>
            <form className="filters" onSubmit={(e) => { e.preventDefault(); go({ q: (new FormData(e.currentTarget).get('q') as string) || undefined }); }}>
              <input name="q" aria-label="search question or item id" placeholder="search question or item id" defaultValue={q ?? ''} />
              <button type="submit">search</button>
            </form>
            <p className="legend-line muted">{Object.entries(categoryText).map(([k, t]) => <span key={k} className={`cell cat-${k}`}>{t.mark} {t.label}</span>)}</p>
            {m.rows.length === 0 ? <p className="muted">No item in this view.</p> : (
              <table className="grid matrix" data-testid="matrix">
                <thead>
                  <tr><th>item</th><th>question</th>{m.variants.map((v) => <th key={v.variantId} className="variant-col" title={v.label}>{v.label}</th>)}</tr>
                </thead>
                <tbody>
                  {m.rows.map((r) => (
                    <tr key={r.itemId} data-testid="matrix-row" data-item-id={r.itemId}>
                      <td><a href={href(['runs', runId, 'items', r.itemId])}>{r.itemId}</a></td>
                      <td className="question" title={r.question}>{r.question}</td>
                      {r.cells.map((c, i) => {
                        const v = m.variants[i];
                        if (!c) return <td key={v.variantId} className="cell none" data-testid="matrix-cell" data-variant-id={v.variantId}><span className="muted" title="no result yet">–</span></td>;
                        return (
                          <td key={v.variantId} className={`cell cat-${c.category}`} data-testid="matrix-cell" data-variant-id={v.variantId} data-category={c.category}>
                            <a href={href(['runs', runId, 'items', r.itemId], { variant: v.variantId })}
                              title={`${v.label}: ${categoryText[c.category].label} (${c.reason})\n${c.predictedSql ?? '(no SQL)'}`}
                              aria-label={`${r.itemId} under ${v.label}: ${categoryText[c.category].label}; open its trace`}>
                              {categoryText[c.category].mark}<span className="cell-label"> {categoryText[c.category].label}</span>
                            </a>
                          </td>
                        );
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <p className="pager" data-testid="pager">
              {m.total === 0 ? '0 items' : `${m.offset + 1}–${Math.min(m.offset + m.rows.length, m.total)} of ${m.total} items`}{' '}
              {m.offset > 0 && <button type="button" onClick={() => go({ offset: Math.max(0, m.offset - m.limit) })}>previous</button>}{' '}
              {m.offset + m.limit < m.total && <button type="button" onClick={() => go({ offset: m.offset + m.limit })}>next</button>}
            </p>
          </>
        )}
      </Status>
    </section>
  );
}
