import { useState } from 'react';
import type { RunSummaryDto } from '@sqlsweep/contracts';
import { download, postJson } from '../lib/api';
import { href } from '../lib/router';
import { PlanEstimate, type PlanSummary } from './PlanEstimate';
import { useAccess } from './useAccess';
import './actions.css';

interface VariantRef { variantId: string; label: string }

/**
 * What can be done to a run from its page: cancel, resume, re-run under a new cache namespace (dry-run estimate
 * first, then confirm) and export. State changes need the write token: with a read-only token (or none) the buttons
 * are disabled and the API's reason is shown.
 */
export function RunActions({ run, variants, onChanged }: { run: RunSummaryDto; variants: VariantRef[]; onChanged: () => void }) {
  const access = useAccess();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [namespace, setNamespace] = useState(() => `rerun-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}`);
  const [rerunPlan, setRerunPlan] = useState<PlanSummary | null>(null);
  const [exportChoice, setExportChoice] = useState('csv');
  const disabled = !access.write || busy;
  const why = access.write ? undefined : `Disabled: ${access.reason ?? 'this token may not change state'}`;

  async function act(label: string, f: () => Promise<string>) {
    setBusy(true);
    setMessage(null);
    try {
      setMessage({ ok: true, text: await f() });
      onChanged();
    } catch (e) {
      setMessage({ ok: false, text: `${label} failed: ${e instanceof Error ? e.message : String(e)}` });
    } finally {
      setBusy(false);
    }
  }

  const cancel = () => act('cancel', async () => {
    setConfirmCancel(false);
    const r = await postJson<{ status: string; removedJobs: number }>(`/runs/${run.id}/cancel`);
    return `Run ${r.status}: ${r.removedJobs} waiting jobs taken off the queues.`;
  });
  const resume = () => act('resume', async () => {
    await postJson(`/runs/${run.id}/resume`);
    return 'Resumed: whatever the run still needs was enqueued again.';
  });
  const estimateRerun = () => act('re-run estimate', async () => {
    setRerunPlan(await postJson<PlanSummary>(`/runs/${run.id}/rerun`, { cacheNamespace: namespace, dryRun: true }));
    return 'Estimate ready: confirm to start the re-run.';
  });
  const startRerun = () => act('re-run', async () => {
    const r = await postJson<{ runId: string }>(`/runs/${run.id}/rerun`, { cacheNamespace: namespace });
    setRerunPlan(null);
    window.location.hash = href(['runs', r.runId]);
    return `Started run ${r.runId}.`;
  });
  const doExport = () => act('export', async () => {
    const [format, variantId] = exportChoice.split(':');
    const name = await download(`/runs/${run.id}/export`, { format, variantId });
    return `Downloaded ${name}.`;
  });
  const resumeWhy = run.status === 'cancelled' || run.status === 'failed' ? `a ${run.status} run cannot be resumed: re-run it instead` : undefined;

  return (
    <div className="actions" data-testid="run-actions">
      <div className="action">
        {!confirmCancel ? (
          <button type="button" className="danger" data-testid="action-cancel" disabled={disabled || run.status !== 'running'}
            title={why ?? (run.status !== 'running' ? `the run is ${run.status}` : 'stop the run and take its waiting jobs off the queues')}
            onClick={() => setConfirmCancel(true)}>Cancel run</button>
        ) : (
          <>
            <span>Cancel this run?</span>
            <button type="button" className="danger" data-testid="action-cancel-confirm" disabled={disabled} onClick={() => void cancel()}>Yes, cancel</button>
            <button type="button" className="secondary" onClick={() => setConfirmCancel(false)}>Keep running</button>
          </>
        )}
      </div>
      <div className="action">
        <button type="button" className="secondary" data-testid="action-resume" disabled={disabled || !!resumeWhy} title={why ?? resumeWhy ?? 're-enqueue what the run still needs'}
          onClick={() => void resume()}>Resume</button>
      </div>
      <div className="action">
        <label>cache namespace <input aria-label="cache namespace of the re-run" value={namespace} onChange={(e) => { setNamespace(e.target.value); setRerunPlan(null); }} size={26} /></label>
        <button type="button" className="secondary" data-testid="action-rerun-estimate" disabled={disabled || namespace.trim() === ''} title={why ?? 'plan the sweep again under this cache namespace and show the estimate'}
          onClick={() => void estimateRerun()}>Re-run: estimate…</button>
        {rerunPlan && <button type="button" data-testid="action-rerun-confirm" disabled={disabled} onClick={() => void startRerun()}>Start the re-run</button>}
      </div>
      <div className="action">
        <select aria-label="export format" data-testid="export-format" value={exportChoice} onChange={(e) => setExportChoice(e.target.value)}>
          <option value="csv">item results, all variants (CSV)</option>
          <option value="jsonl">item results, all variants (JSONL)</option>
          {variants.map((v) => <option key={`spider:${v.variantId}`} value={`spider:${v.variantId}`}>Spider prediction file: {v.label}</option>)}
          {variants.map((v) => <option key={`bird:${v.variantId}`} value={`bird:${v.variantId}`}>BIRD prediction file: {v.label}</option>)}
        </select>
        <button type="button" className="secondary" data-testid="action-export" disabled={busy} onClick={() => void doExport()}>Export</button>
      </div>
      {why && access.known && <p className="actions-disabled" data-testid="actions-disabled-reason">Run actions are disabled: {access.reason}</p>}
      {rerunPlan && <PlanEstimate plan={rerunPlan} />}
      {message && <p className={`action-result ${message.ok ? '' : 'error'}`} role="status" data-testid="action-result">{message.text}</p>}
    </div>
  );
}
