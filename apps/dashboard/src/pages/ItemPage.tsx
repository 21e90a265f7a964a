import type { ItemDetailDto, ItemTablesDto, StageTraceDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { int, ms, shortId, usd } from '../lib/format';
import { href } from '../lib/router';
import { ResultTable } from '../components/ResultTable';
import { Simulated } from '../components/Simulated';
import { SimulationReport } from '../components/SimulationReport';
import { Status } from '../components/Status';
import { Verdict } from './ItemsPage';

/** One item of a run: question, gold SQL, and per variant the predicted SQL, the verdict and every stage. */
export function ItemPage({ runId, itemId }: { runId: string; itemId: string }) {
  const item = useApi<ItemDetailDto>(`/runs/${runId}/items/${encodeURIComponent(itemId)}`);
  return (
    <Status loaded={item}>
      {(d) => (
        <section data-testid="item-detail">
          <h1>Item <span data-testid="item-id">{d.itemId}</span> <span className="muted">· {d.dbId} · run <a href={href(['runs', runId])}>{shortId(runId)}</a></span> <Simulated on={d.simulated} /></h1>
          <dl className="item-facts">
            <dt>question</dt><dd data-testid="question">{d.question}</dd>
            {d.evidence && <><dt>evidence</dt><dd>{d.evidence}</dd></>}
            <dt>difficulty</dt><dd>{d.difficulty ?? '–'}</dd>
            <dt>gold SQL</dt><dd><pre className="sql" data-testid="gold-sql">{d.goldSql}</pre></dd>
          </dl>
          {d.variants.map((v) => (
            <article key={v.variantId} className="variant-card" data-testid="item-variant" data-variant-id={v.variantId}>
              <h2>{v.label} {v.result && <Verdict correct={v.result.correct} errored={v.result.errored} reason={v.result.reason} />} {v.result && <Simulated on={v.result.simulated} />}</h2>
              {v.result ? (
                <>
                  <pre className="sql" data-testid="predicted-sql">{v.result.predictedSql ?? '(no SQL produced)'}</pre>
                  <p className="facts">
                    <span data-testid="reason">{v.result.reason}</span> · <span data-testid="scorer">{v.result.scorer ?? 'no scorer'}</span> · {int(v.result.inputTokens)} tokens in, {int(v.result.outputTokens)} out
                    · {usd(v.result.costUsd)} · {ms(v.result.latencyMs)}
                  </p>
                </>
              ) : <p className="muted">No result for this variant yet.</p>}
              {v.result && <Tables runId={runId} variantId={v.variantId} itemId={d.itemId} />}
              <h3>Stages</h3>
              {v.stages.map((s) => <StageTrace key={s.stageKey} s={s} />)}
            </article>
          ))}
        </section>
      )}
    </Status>
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

function StageTrace({ s }: { s: StageTraceDto }) {
  return (
    <details className="stage" data-testid="stage-trace" data-stage={s.stage} open={s.prompt !== null}>
      <summary>
        <strong>{s.stage}</strong> <span className="muted">{s.role}</span> <span className={`status ${s.status}`}>{s.status}</span>
        {s.sandbox && <span className="sandbox"> · sandbox {s.sandbox.status}{s.sandbox.rows !== undefined ? `, ${s.sandbox.rows} rows` : ''}{s.sandbox.message ? `: ${s.sandbox.message}` : ''}</span>}
        {s.role === 'llm' && <span className="muted"> · {int(s.inputTokens)} in ({int(s.cachedInputTokens)} cached) / {int(s.outputTokens)} out · {usd(s.costUsd)}</span>}
        <span className="muted"> · {ms(s.latencyMs)}</span> <Simulated on={s.simulated} />
      </summary>
      <SimulationReport report={s.simulation} />
      {s.prompt !== null && <><h4>prompt</h4><pre className="trace" data-testid="stage-prompt">{promptText(s.prompt)}</pre></>}
      {s.response !== null && <><h4>response</h4><pre className="trace" data-testid="stage-response">{s.response}</pre></>}
      {s.error && <><h4>error</h4><pre className="trace err">{s.error}</pre></>}
      <h4>output</h4><pre className="trace">{JSON.stringify(s.output, null, 2)}</pre>
    </details>
  );
}

/** Gold and predicted results side by side, executed on request by the API on the read-only replica. */
function Tables({ runId, variantId, itemId }: { runId: string; variantId: string; itemId: string }) {
  const tables = useApi<ItemTablesDto>(`/runs/${runId}/variants/${variantId}/items/${encodeURIComponent(itemId)}/tables`);
  return (
    <Status loaded={tables}>
      {(t) => (
        <div className="result-tables">
          <ResultTable table={t.gold} title="gold result" testId="gold-table" />
          <ResultTable table={t.predicted} title="predicted result" testId="predicted-table" />
        </div>
      )}
    </Status>
  );
}
