import type { RunDetailDto, RunSummaryDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { duration, shortId, usd, when } from '../lib/format';
import { href } from '../lib/router';
import { ProgressBar } from '../components/ProgressBar';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';

const anyRunning = (runs: RunSummaryDto[]) => runs.some((r) => r.status === 'running');

/** Every run, newest first; running sweeps show live progress per stage kind, cost so far and time left. */
export function RunsPage() {
  const runs = useApi<RunSummaryDto[]>('/runs', { limit: 100 }, { refreshMs: 3000, keepPolling: anyRunning });
  return (
    <section>
      <h1>Runs</h1>
      <Status loaded={runs}>
        {(list) => list.length === 0 ? <p className="muted">No runs yet: start one with <code>sqlsweep run configs/sweeps/demo.yaml</code>.</p> : (
          <table className="grid" data-testid="runs-table">
            <thead>
              <tr><th>run</th><th>sweep</th><th>status</th><th>started</th><th className="num">items</th><th className="num">variants</th><th className="num">stage jobs</th><th className="num">reused</th><th>progress</th></tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.id} data-testid="run-row" data-run-id={r.id}>
                  <td><a href={href(['runs', r.id])}>{shortId(r.id)}</a> <Simulated on={r.simulated} /></td>
                  <td><a href={href(['trends'], { sweep: r.sweepName })} title="runs of this sweep over time">{r.sweepName}</a></td>
                  <td><span className={`status ${r.status}`} title={r.failureReason ?? undefined}>{r.status}</span></td>
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

export function LiveProgress({ runId }: { runId: string }) {
  const detail = useApi<RunDetailDto>(`/runs/${runId}`, {}, { refreshMs: 2000, keepPolling: (d) => d.run.status === 'running' });
  return (
    <Status loaded={detail}>
      {(d) => <RunProgress detail={d} />}
    </Status>
  );
}

export function RunProgress({ detail }: { detail: RunDetailDto }) {
  return (
    <div className="run-progress" data-testid="run-progress">
      {detail.progress.map((p) => <ProgressBar key={p.stage} label={p.stage} done={p.done} failed={p.failed} planned={p.planned} />)}
      <div className="run-progress-facts">
        <span>items {detail.itemsDone}/{detail.itemsPlanned}</span>
        <span data-testid="cost-so-far">cost so far {usd(detail.costSoFarUsd)}</span>
        <span data-testid="eta">time left {duration(detail.etaSeconds)}</span>
      </div>
    </div>
  );
}
