import type { ItemDetailDto, ItemTablesDto, ResultTableDto, StageTraceDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { diff, rowDiff, sqlTokens } from '../lib/diff';
import { int, ms, usd } from '../lib/format';
import { href } from '../lib/router';
import { CostValue } from '../components/RunCost';
import { Id } from '../components/Id';
import { ResultTable } from '../components/ResultTable';
import { Simulated } from '../components/Simulated';
import { SimulationReport } from '../components/SimulationReport';
import { Status } from '../components/Status';
import { Verdict } from '../components/Verdict';

type VariantDetail = ItemDetailDto['variants'][number];

/**
 * One item of a run under one variant (`variant` in the URL; a jump menu for the others): the question, gold vs
 * predicted SQL as a diff, their result tables as a row diff, and every stage with its prompt and response a click away.
 */
export function ItemPage({ runId, itemId, variantId }: { runId: string; itemId: string; variantId?: string }) {
  const item = useApi<ItemDetailDto>(`/runs/${runId}/items/${encodeURIComponent(itemId)}`);
  return (
    <Status loaded={item}>
      {(d) => {
        const wanted = variantId?.toLowerCase();
        const current = d.variants.find((v) => v.variantId === wanted || (wanted !== undefined && v.variantId.startsWith(wanted))) ?? d.variants[0];
        return (
          <section data-testid="item-detail">
            <h1>Item <span data-testid="item-id">{d.itemId}</span> <span className="muted">· {d.dbId} · run <Id id={runId} href={href(['runs', runId])} /></span> <Simulated on={d.simulated} /></h1>
            <dl className="item-facts">
              <dt>question</dt><dd data-testid="question">{d.question}</dd>
              {d.evidence && <><dt>evidence</dt><dd>{d.evidence}</dd></>}
              <dt>difficulty</dt><dd>{d.difficulty ?? '–'}</dd>
            </dl>
            <nav className="variant-jump" aria-label="variants" data-testid="variant-jump">
              {d.variants.map((v) => (
                <a key={v.variantId} href={href(['runs', runId, 'items', d.itemId], { variant: v.variantId })} data-variant-id={v.variantId}
                  className={v === current ? 'active' : ''} aria-current={v === current ? 'page' : undefined}>
                  {v.label} {v.result ? <Verdict category={v.result.category} reason={v.result.reason} /> : <span className="muted">no result</span>}
                </a>
              ))}
            </nav>
            {current ? <VariantView key={current.variantId} runId={runId} goldSql={d.goldSql} itemId={d.itemId} v={current} /> : <p className="muted">The run has no variant.</p>}
          </section>
        );
      }}
    </Status>
  );
}

function VariantView({ runId, itemId, goldSql, v }: { runId: string; itemId: string; goldSql: string; v: VariantDetail }) {
  return (
    <article className="variant-card" data-testid="item-variant" data-variant-id={v.variantId}>
      <h2>{v.label} <Id id={v.variantId} /> {v.result && <Verdict category={v.result.category} reason={v.result.reason} scorer={v.result.scorer} />} {v.result && <Simulated on={v.result.simulated} />}</h2>
      {v.result ? (
        <p className="facts">
          <span data-testid="reason">{v.result.reason}</span> · <span data-testid="scorer">{v.result.scorer ?? 'no scorer'}</span> · {int(v.result.inputTokens)} tokens in, {int(v.result.outputTokens)} out
          · {usd(v.result.costUsd)} · {ms(v.result.latencyMs)}
        </p>
      ) : <p className="muted">No result for this variant yet.</p>}
      <SqlDiff gold={goldSql} predicted={v.result ? v.result.predictedSql : null} />
      {v.result && <Tables runId={runId} variantId={v.variantId} itemId={itemId} />}
      <h3>Stages</h3>
      <ol className="stages" data-testid="stages">
        {v.stages.map((s) => <StageTrace key={s.stageKey} s={s} />)}
      </ol>
    </article>
  );
}

/** Gold and predicted SQL side by side, the tokens only one of them has marked. */
function SqlDiff({ gold, predicted }: { gold: string; predicted: string | null }) {
  const parts = predicted === null ? [] : diff(sqlTokens(gold.trim()), sqlTokens(predicted.trim()));
  return (
    <div className="sql-diff" data-testid="sql-diff">
      <div>
        <h4>gold SQL</h4>
        <pre className="sql" data-testid="gold-sql">{predicted === null ? gold.trim() : parts.filter((p) => p.op !== 'add').map((p, i) => (p.op === 'del' ? <del key={i}>{p.value}</del> : p.value))}</pre>
      </div>
      <div>
        <h4>predicted SQL</h4>
        <pre className="sql" data-testid="predicted-sql">{predicted === null ? '(no SQL produced)' : parts.filter((p) => p.op !== 'del').map((p, i) => (p.op === 'add' ? <ins key={i}>{p.value}</ins> : p.value))}</pre>
      </div>
    </div>
  );
}

function promptText(prompt: unknown): string {
  if (typeof prompt === 'string') return prompt;
  // Chat prompts: an array of {role, content} messages, shown one after the other.
  if (Array.isArray(prompt) && prompt.every((m) => typeof m === 'object' && m !== null && 'content' in m)) {
    return prompt.map((m: { role?: unknown; content: unknown }) => `[${String(m.role ?? 'message')}]\n${typeof m.content === 'string' ? m.content : JSON.stringify(m.content, null, 2)}`).join('\n\n');
  }
  return JSON.stringify(prompt, null, 2);
}

/** One stage: its status (skipped ones say so, with no time), cost and time; prompt, response, error and output one click away. */
function StageTrace({ s }: { s: StageTraceDto }) {
  const skipped = s.status === 'skipped';
  return (
    <li className={`stage ${s.status}`} data-testid="stage-trace" data-stage={s.stage} data-status={s.status}>
      <details open={s.status === 'failed'}>
        <summary>
          <strong>{s.stage}</strong> <span className="muted">{s.role}</span> <span className={`status ${s.status}`}>{s.status}</span>
          {s.sandbox && !skipped && <span className="sandbox"> · sandbox {s.sandbox.status}{s.sandbox.rows !== undefined ? `, ${s.sandbox.rows} rows` : ''}{s.sandbox.message ? `: ${s.sandbox.message}` : ''}</span>}
          {skipped ? <span className="muted"> · not run: the chain had stopped before this step</span> : <>
            {s.role === 'llm' && <span className="muted"> · {int(s.inputTokens)} in ({int(s.cachedInputTokens)} cached) / {int(s.outputTokens)} out · <CostValue usdValue={s.costUsd} cached={s.costSource === 'cache'} /></span>}
            {s.status !== 'pending' && <span className="muted"> · {ms(s.latencyMs)}</span>}
          </>} <Simulated on={s.simulated} />
        </summary>
        <SimulationReport report={s.simulation} />
        {s.prompt !== null && <><h4>prompt</h4><pre className="trace" data-testid="stage-prompt">{promptText(s.prompt)}</pre></>}
        {s.response !== null && <><h4>response</h4><pre className="trace" data-testid="stage-response">{s.response}</pre></>}
        {s.error && <><h4>error</h4><pre className="trace err">{s.error}</pre></>}
        <h4>output</h4><pre className="trace">{JSON.stringify(s.output, null, 2)}</pre>
      </details>
    </li>
  );
}

/** Gold and predicted results, executed on request by the API on the read-only replica, then compared row by row. */
function Tables({ runId, variantId, itemId }: { runId: string; variantId: string; itemId: string }) {
  const tables = useApi<ItemTablesDto>(`/runs/${runId}/variants/${variantId}/items/${encodeURIComponent(itemId)}/tables`);
  return (
    <Status loaded={tables}>
      {(t) => (
        <>
          {t.gold.status === 'ok' && t.predicted.status === 'ok' && <RowDiff gold={t.gold} predicted={t.predicted} />}
          <details className="result-tables-box" open>
            <summary>both result tables</summary>
            <div className="result-tables">
              <ResultTable table={t.gold} title="gold result" testId="gold-table" />
              <ResultTable table={t.predicted} title="predicted result" testId="predicted-table" />
            </div>
          </details>
        </>
      )}
    </Status>
  );
}

const cell = (v: string | number | null) => (v === null ? <span className="muted">NULL</span> : String(v));

/** Rows compared as multisets: how many match, and the ones missing from the prediction or extra in it. */
function RowDiff({ gold, predicted }: { gold: ResultTableDto; predicted: ResultTableDto }) {
  const d = rowDiff(gold.rows, predicted.rows);
  const shown = [...d.missing.slice(0, 25).map((r) => ({ r, side: 'missing' as const })), ...d.extra.slice(0, 25).map((r) => ({ r, side: 'extra' as const }))];
  const columns = gold.columns.length >= predicted.columns.length ? gold.columns : predicted.columns;
  return (
    <div className="row-diff" data-testid="row-diff" data-matched={d.matched} data-missing={d.missing.length} data-extra={d.extra.length}>
      <h4>result rows: {d.matched} match, {d.missing.length} missing from the prediction, {d.extra.length} extra{gold.truncated || predicted.truncated ? ' (of the rows shown)' : ''}</h4>
      {shown.length > 0 && (
        <div className="table-scroll">
          <table className="grid compact">
            <thead><tr><th>row</th>{columns.map((c, i) => <th key={i}>{c}</th>)}</tr></thead>
            <tbody>
              {shown.map(({ r, side }, i) => (
                <tr key={i} className={side}><td>{side === 'missing' ? '− gold only' : '+ predicted only'}</td>{r.map((v, j) => <td key={j} className={typeof v === 'number' ? 'num' : ''}>{cell(v)}</td>)}</tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
