import type { ItemResultDto, VariantDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { ms, usd } from '../lib/format';
import { href, type Route } from '../lib/router';
import { Id } from '../components/Id';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';
import { categoryText, Verdict } from '../components/Verdict';

interface Page<T> { items: T[]; total: number; limit: number; offset: number }

const filterKeys = ['variantId', 'category', 'correct', 'errored', 'difficulty', 'q', 'sort', 'order', 'offset'] as const;

/** Item results of a run with the API's filters; every row opens the item drill-down. */
export function ItemsPage({ runId, route }: { runId: string; route: Route }) {
  const filters = Object.fromEntries(filterKeys.map((k) => [k, route.query.get(k) ?? undefined]));
  const variants = useApi<VariantDto[]>(`/runs/${runId}/variants`);
  const page = useApi<Page<ItemResultDto>>(`/runs/${runId}/items`, { ...filters, limit: 50 });
  const go = (patch: Record<string, string | undefined>) => {
    window.location.hash = href(['runs', runId, 'items'], { ...filters, offset: undefined, ...patch });
  };
  return (
    <section>
      <h1>Item results <span className="muted">· run <Id id={runId} href={href(['runs', runId])} /> · <a href={href(['runs', runId, 'matrix'])}>items × variants</a></span></h1>
      <form className="filters" onSubmit={(e) => { e.preventDefault(); go({ q: (new FormData(e.currentTarget).get('q') as string) || undefined }); }}>
        <select value={filters.variantId ?? ''} onChange={(e) => go({ variantId: e.target.value || undefined })} aria-label="variant">
          <option value="">all variants</option>
          {variants.data?.map((v) => <option key={v.id} value={v.id}>{v.label}</option>)}
        </select>
        <select value={filters.category ?? ''} onChange={(e) => go({ category: e.target.value || undefined })} aria-label="verdict">
          <option value="">every verdict</option>
          {Object.entries(categoryText).map(([k, t]) => <option key={k} value={k}>{t.label}</option>)}
        </select>
        <input name="difficulty" aria-label="difficulty" placeholder="difficulty" defaultValue={filters.difficulty ?? ''} onBlur={(e) => go({ difficulty: e.target.value || undefined })} />
        <input name="q" aria-label="search question or item id" placeholder="search question or item id" defaultValue={filters.q ?? ''} />
        <button type="submit">search</button>
      </form>
      <Status loaded={page}>
        {(p) => (
          <>
            <table className="grid" data-testid="items-table">
              <thead><tr><th>item</th><th>variant</th><th>db</th><th>question</th><th>difficulty</th><th>result</th><th className="num">cost</th><th className="num">latency</th></tr></thead>
              <tbody>
                {p.items.map((r) => (
                  <tr key={`${r.variantId}/${r.itemId}`} data-testid="item-row">
                    <td><a href={href(['runs', runId, 'items', r.itemId], { variant: r.variantId })}>{r.itemId}</a></td>
                    <td>{r.variantLabel} <Simulated on={r.simulated} /></td>
                    <td>{r.dbId}</td>
                    <td className="question">{r.question}</td>
                    <td>{r.difficulty ?? '–'}</td>
                    <td><Verdict category={r.category} reason={r.reason} scorer={r.scorer} /></td>
                    <td className="num">{usd(r.costUsd)}</td>
                    <td className="num">{ms(r.latencyMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="pager">
              {p.offset + 1}–{Math.min(p.offset + p.items.length, p.total)} of {p.total}{' '}
              {p.offset > 0 && <button type="button" onClick={() => go({ offset: String(Math.max(0, p.offset - p.limit)) })}>previous</button>}
              {p.offset + p.limit < p.total && <button type="button" onClick={() => go({ offset: String(p.offset + p.limit) })}>next</button>}
            </p>
          </>
        )}
      </Status>
    </section>
  );
}
