import type { ItemResultDto, VariantDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { ms, shortId, usd } from '../lib/format';
import { href, type Route } from '../lib/router';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';

interface Page<T> { items: T[]; total: number; limit: number; offset: number }

const filterKeys = ['variantId', 'correct', 'errored', 'difficulty', 'q', 'sort', 'order', 'offset'] as const;

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
      <h1>Item results <span className="muted">· run <a href={href(['runs', runId])}>{shortId(runId)}</a></span></h1>
      <form className="filters" onSubmit={(e) => { e.preventDefault(); go({ q: (new FormData(e.currentTarget).get('q') as string) || undefined }); }}>
        <select value={filters.variantId ?? ''} onChange={(e) => go({ variantId: e.target.value || undefined })} aria-label="variant">
          <option value="">all variants</option>
          {variants.data?.map((v) => <option key={v.id} value={v.id}>{v.label}</option>)}
        </select>
        <select value={filters.correct ?? ''} onChange={(e) => go({ correct: e.target.value || undefined })} aria-label="correct">
          <option value="">right and wrong</option><option value="true">right only</option><option value="false">wrong only</option>
        </select>
        <input name="difficulty" placeholder="difficulty" defaultValue={filters.difficulty ?? ''} onBlur={(e) => go({ difficulty: e.target.value || undefined })} />
        <input name="q" placeholder="search question or item id" defaultValue={filters.q ?? ''} />
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
                    <td><a href={href(['runs', runId, 'items', r.itemId])}>{r.itemId}</a></td>
                    <td>{r.variantLabel} <Simulated on={r.simulated} /></td>
                    <td>{r.dbId}</td>
                    <td className="question">{r.question}</td>
                    <td>{r.difficulty ?? '–'}</td>
                    <td><Verdict correct={r.correct} errored={r.errored} reason={r.reason} scorer={r.scorer} /></td>
                    <td className="num">{usd(r.costUsd)}</td>
                    <td className="num">{ms(r.latencyMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="pager">
              {p.offset + 1}–{Math.min(p.offset + p.items.length, p.total)} of {p.total}{' '}
              {p.offset > 0 && <button onClick={() => go({ offset: String(Math.max(0, p.offset - p.limit)) })}>previous</button>}
              {p.offset + p.limit < p.total && <button onClick={() => go({ offset: String(p.offset + p.limit) })}>next</button>}
            </p>
          </>
        )}
      </Status>
    </section>
  );
}

/** A verdict; its tooltip gives the reason and the scorer that gave it. */
export function Verdict({ correct, errored, reason, scorer }: { correct: boolean; errored: boolean; reason: string; scorer?: string | null }) {
  const cls = correct ? 'ok' : errored ? 'err' : 'wrong';
  return <span className={`verdict ${cls}`} data-testid="verdict" title={scorer ? `${reason} (${scorer})` : reason}>{correct ? 'correct' : errored ? 'error' : 'wrong'}</span>;
}
