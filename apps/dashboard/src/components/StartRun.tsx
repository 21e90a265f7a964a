import { useState } from 'react';
import type { SweepDetailDto, SweepSummaryDto } from '@sqlsweep/contracts';
import { getJson, postJson, useApi } from '../lib/api';
import { shortId, when } from '../lib/format';
import { href } from '../lib/router';
import { PlanEstimate, type PlanSummary } from './PlanEstimate';
import { useAccess } from './useAccess';
import './actions.css';

/**
 * Starts a run from a stored sweep config: pick the sweep, optionally a new cache namespace, see the dry-run
 * estimate, then confirm. Needs the write token; otherwise the button is disabled with the reason.
 */
export function StartRun() {
  const access = useAccess();
  const sweeps = useApi<SweepSummaryDto[]>('/sweeps', { limit: 100 });
  const [sweepId, setSweepId] = useState('');
  const [namespace, setNamespace] = useState('');
  const [plan, setPlan] = useState<{ config: string; source: string; summary: PlanSummary } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const disabled = !access.write || busy;

  async function configText(): Promise<{ config: string; source: string }> {
    const s = await getJson<SweepDetailDto>(`/sweeps/${sweepId}`);
    const config = { ...(s.config as Record<string, unknown>), ...(namespace.trim() ? { cacheNamespace: namespace.trim() } : {}) };
    return { config: JSON.stringify(config), source: `stored sweep ${s.name} (${s.id})` };
  }
  async function run<T>(f: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setError(null);
    try { return await f(); } catch (e) { setError(e instanceof Error ? e.message : String(e)); return undefined; } finally { setBusy(false); }
  }
  const estimate = () => run(async () => {
    const body = await configText();
    const summary = await postJson<PlanSummary>('/runs', { ...body, dryRun: true });
    setPlan({ ...body, summary });
  });
  const start = () => run(async () => {
    if (!plan) return;
    const r = await postJson<{ runId: string }>('/runs', { config: plan.config, source: plan.source });
    setPlan(null);
    window.location.hash = href(['runs', r.runId]);
  });

  return (
    <div className="start-run" data-testid="start-run">
      <div className="row">
        <strong>Start a run</strong>
        <select aria-label="stored sweep" data-testid="start-sweep" value={sweepId} onChange={(e) => { setSweepId(e.target.value); setPlan(null); }}>
          <option value="">pick a stored sweep config…</option>
          {sweeps.data?.map((s) => <option key={s.id} value={s.id}>{s.name} · {shortId(s.id)} · {when(s.createdAt)}</option>)}
        </select>
        <label>cache namespace <input aria-label="cache namespace of the new run" placeholder="(as stored)" value={namespace} onChange={(e) => { setNamespace(e.target.value); setPlan(null); }} size={20} /></label>
        <button type="button" className="secondary" data-testid="start-estimate" disabled={disabled || sweepId === ''} title={access.write ? 'plan it and show the estimate' : `Disabled: ${access.reason}`}
          onClick={() => void estimate()}>Estimate…</button>
        {plan && <button type="button" data-testid="start-confirm" disabled={disabled} onClick={() => void start()}>Start this run</button>}
      </div>
      {!access.write && access.known && <p className="actions-disabled" data-testid="start-disabled-reason">Starting runs is disabled: {access.reason}</p>}
      {plan && <PlanEstimate plan={plan.summary} />}
      {error && <p className="error" role="alert">{error}</p>}
    </div>
  );
}
