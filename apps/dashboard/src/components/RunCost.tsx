import type { RunCostDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { int, usd } from '../lib/format';
import { Status } from './Status';
import './actions.css';

/** A cost that was not paid because the answer came from the response cache says so, rather than $0.0000. */
export function CostValue({ usdValue, cached }: { usdValue: number; cached: boolean }) {
  if (cached) return <span className="cache-tag" title={`answer taken from the response cache: nothing paid (the call cost ${usd(usdValue)})`}>cache</span>;
  return <>{usd(usdValue)}</>;
}

/** Estimate against spend, per stage kind, and what the response cache and stage reuse saved; live while the run runs. */
export function RunCost({ runId, running }: { runId: string; running: boolean }) {
  const cost = useApi<RunCostDto>(`/runs/${runId}/cost`, {}, { refreshMs: 2000, keepPolling: (c) => c.status === 'running' });
  return (
    <Status loaded={cost}>
      {(c) => {
        const savedUsd = c.cache.savedUsd + c.reuse.savedUsd;
        return (
          <div data-testid="run-cost">
            <div className="cost-summary">
              <div><span className="label">spent{running ? ' so far' : ''}</span><span className="value" data-testid="cost-spent">{usd(c.spent.costUsd)}</span>
                <span className="label">{int(c.spent.llmCalls)} LLM calls · {int(c.spent.inputTokens)} in / {int(c.spent.outputTokens)} out</span></div>
              <div><span className="label">estimated before the run</span><span className="value" data-testid="cost-estimate">{usd(c.estimate.costUsd)}</span>
                <span className="label">{int(c.estimate.llmCalls)} LLM calls · {int(c.estimate.inputTokens)} in / {int(c.estimate.outputTokens)} out</span></div>
              <div><span className="label">saved by the response cache</span><span className="value" data-testid="cache-saved">{usd(c.cache.savedUsd)}</span>
                <span className="label" data-testid="cache-calls">{int(c.cache.calls)} calls answered from the cache{c.cacheNamespace ? ` (namespace ${c.cacheNamespace})` : ''}</span></div>
              <div><span className="label">saved by stage reuse</span><span className="value" data-testid="reuse-saved">{usd(c.reuse.savedUsd)}</span>
                <span className="label" data-testid="reuse-stages">{int(c.reuse.stages)} stage results reused from other runs, {int(c.reuse.calls)} of them LLM calls</span></div>
              <div><span className="label">saved in all</span><span className="value" data-testid="total-saved">{usd(savedUsd)}</span>
                <span className="label">{int(c.cache.calls + c.reuse.calls)} LLM calls not paid for</span></div>
            </div>
            <table className="grid" data-testid="cost-by-stage">
              <thead>
                <tr>
                  <th>stage kind</th><th className="num">done / planned</th><th className="num">paid calls</th><th className="num">tokens in</th><th className="num">tokens out</th>
                  <th className="num">spent</th><th className="num">cache hits</th><th className="num">cache saved</th><th className="num">reused</th><th className="num">reuse saved</th>
                </tr>
              </thead>
              <tbody>
                {c.byStage.map((s) => (
                  <tr key={s.stage} data-testid="cost-stage-row" data-stage={s.stage}>
                    <td>{s.stage}</td>
                    <td className="num">{int(s.done)} / {int(s.planned)}</td>
                    <td className="num" data-col="paid-calls">{int(s.paidCalls)}</td>
                    <td className="num">{int(s.inputTokens)}</td>
                    <td className="num">{int(s.outputTokens)}</td>
                    <td className="num" data-col="spent">{s.paidCalls === 0 && s.cacheCalls > 0 ? <CostValue usdValue={s.cacheSavedUsd} cached /> : usdOrDash(s.costUsd, s.paidCalls)}</td>
                    <td className="num" data-col="cache-calls">{int(s.cacheCalls)}</td>
                    <td className="num" data-col="cache-saved">{s.cacheCalls > 0 ? usd(s.cacheSavedUsd) : '–'}</td>
                    <td className="num" data-col="reused">{int(s.reusedStages)}</td>
                    <td className="num" data-col="reuse-saved">{s.reusedCalls > 0 ? usd(s.reusedSavedUsd) : '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="muted">Spent counts the calls this run paid for. Cache hits and reused stage results cost it nothing: their “saved” is what those calls cost when they were made. Stages without LLM calls (SQL, retrieval) cost nothing.</p>
          </div>
        );
      }}
    </Status>
  );
}

function usdOrDash(v: number, calls: number): string {
  return calls === 0 && v === 0 ? '–' : usd(v);
}
