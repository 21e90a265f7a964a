import type { RunDetailDto, RunSummaryDto } from '@sqlsweep/contracts';
import { useState } from 'react';
import { postJson, useApi } from '../lib/api';
import { duration, int, shortId, usd, when } from '../lib/format';
import { href } from '../lib/router';
import { ProgressBar } from '../components/ProgressBar';
import { Simulated } from '../components/Simulated';
import { StartRun } from '../components/StartRun';
import { Status } from '../components/Status';
import { useAccess } from '../components/useAccess';
import '../components/actions.css';

const anyRunning = (runs: RunSummaryDto[]) => runs.some((r) => r.status === 'running');

/** Every run, newest first; running sweeps show live progress, cost so far and time left; new runs appear on their own. */
export function RunsPage() {
  // Polls every 3 s while a run runs and every 5 s otherwise, so a run started elsewhere shows up without a reload.
  const runs = useApi<RunSummaryDto[]>('/runs', { limit: 100 }, { refreshMs: 3000, idleRefreshMs: 5000, keepPolling: anyRunning });
  const access = useAccess();
  return (
    <section>
      <h1>Runs</h1>
      <StartRun />
      <Status loaded={runs}>
        {(list) => list.length === 0 ? <p className="muted">No runs yet: start one above or with <code>sqlsweep run configs/sweeps/demo.yaml</code>.</p> : (
          <table className="grid" data-testid="runs-table">
            <thead>
              <tr><th>run</th><th>sweep</th><th>status</th><th>started</th><th className="num">items</th><th className="num">variants</th><th className="num">stage jobs</th><th className="num">reused</th><th>progress</th></tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.id} data-testid="run-row" data-run-id={r.id}>
                  <td><a href={href(['runs', r.id])}>{shortId(r.id)}</a> <Simulated on={r.simulated} /></td>
                  <td><a href={href(['trends'], { sweep: r.sweepName })} title="runs of this sweep over time">{r.sweepName}</a></td>
                  <td>
                    <span className={`status ${r.status}`} title={r.failureReason ?? undefined}>{r.status}</span>
                    {r.status === 'running' && <CancelFromList runId={r.id} canWrite={access.write} reason={access.reason} onDone={runs.reload} />}
                  </td>
                  <td>{when(r.createdAt)}</td>
                  <td className="num">{r.itemCount}</td>
                  <td className="num">{r.variantCount}</td>
                  <td className="num">{r.stageJobs}</td>
                  <td className="num">{r.reusedStages}</td>
                  <td>{r.status === 'running' ? <LiveProgress runId={r.id} /> : <span className="muted">finished {when(r.finishedAt)}</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Status>
    </section>
  );
}

/** Cancel a running run from the list: one click, then confirm; disabled with the reason for a token that may not. */
function CancelFromList({ runId, canWrite, reason, onDone }: { runId: string; canWrite: boolean; reason: string | null; onDone: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = async () => {
    try { await postJson(`/runs/${runId}/cancel`); onDone(); } catch (e) { setError(e instanceof Error ? e.message : String(e)); } finally { setConfirming(false); }
  };
  return (
    <span className="list-actions">
      {' '}
      {confirming
        ? <><button type="button" className="danger" data-testid="list-cancel-confirm" onClick={() => void cancel()}>Yes, cancel</button> <button type="button" className="secondary" onClick={() => setConfirming(false)}>No</button></>
        : <button type="button" className="secondary" data-testid="list-cancel" disabled={!canWrite} title={canWrite ? 'cancel this run' : `Disabled: ${reason ?? 'this token may not change state'}`} onClick={() => setConfirming(true)}>Cancel</button>}
      {error && <span className="error" role="alert">{error}</span>}
    </span>
  );
}

export function LiveProgress({ runId }: { runId: string }) {
  const detail = useApi<RunDetailDto>(`/runs/${runId}`, {}, { refreshMs: 2000, keepPolling: (d) => d.run.status === 'running' });
  return (
    <Status loaded={detail}>
      {(d) => <RunProgress detail={d} />}
    </Status>
  );
}

/** `zero-shot.generate` belongs to the method `zero-shot`; a stage without a method prefix to the shared stages. */
const methodOf = (stage: string) => (stage.includes('.') ? stage.slice(0, stage.indexOf('.')) : 'shared');

/** One overall bar (stage jobs settled of planned), then the stage kinds' bars grouped by method, items, cost so far and the ETA. */
export function RunProgress({ detail }: { detail: RunDetailDto }) {
  const methods = [...new Set(detail.progress.map((p) => methodOf(p.stage)))];
  const failed = detail.progress.reduce((n, p) => n + p.failed, 0);
  const pct = detail.stagesPlanned > 0 ? (100 * detail.stagesSettled) / detail.stagesPlanned : 0;
  return (
    <div className="run-progress" data-testid="run-progress">
      <div className="overall-progress" data-testid="overall-progress" data-settled={detail.stagesSettled} data-planned={detail.stagesPlanned}>
        <span>overall {pct.toFixed(0)} %</span>
        <span className="progress-track" role="progressbar" aria-valuemin={0} aria-valuemax={detail.stagesPlanned} aria-valuenow={detail.stagesSettled} aria-label="overall progress in stage jobs">
          <span className="progress-done" style={{ width: `${pct}%` }} />
        </span>
        <span>{int(detail.stagesSettled)}/{int(detail.stagesPlanned)} stage jobs{failed > 0 ? ` (${failed} failed)` : ''}</span>
      </div>
      {methods.map((m) => (
        <div key={m} className="method-group" data-testid="method-group" data-method={m}>
          <div className="method-name">{m}</div>
          {detail.progress.filter((p) => methodOf(p.stage) === m).map((p) => <ProgressBar key={p.stage} label={p.stage} done={p.done} failed={p.failed} planned={p.planned} />)}
        </div>
      ))}
      <div className="run-progress-facts">
        <span>items {detail.itemsDone}/{detail.itemsPlanned}</span>
        <span data-testid="cost-so-far">cost so far {usd(detail.costSoFarUsd)}</span>
        <span data-testid="eta" data-eta-seconds={detail.etaSeconds ?? ''} title="stage jobs left over the rate stage jobs completed at in the last 30 s">
          time left {detail.etaSeconds === null ? (detail.run.status === 'running' ? '– (no stage finished in the last 30 s)' : '–') : `≈ ${duration(detail.etaSeconds)}`}
        </span>
      </div>
    </div>
  );
}
