export function ProgressBar({ done, failed, planned, label }: { done: number; failed: number; planned: number; label: string }) {
  const w = (n: number) => `${planned > 0 ? (100 * n) / planned : 0}%`;
  return (
    <div className="progress" data-testid="stage-progress" data-stage={label}>
      <span className="progress-label">{label}</span>
      <span className="progress-track">
        <span className="progress-done" style={{ width: w(done) }} />
        <span className="progress-failed" style={{ width: w(failed) }} />
      </span>
      <span className="progress-count">{done}/{planned}{failed > 0 ? ` (${failed} failed)` : ''}</span>
    </div>
  );
}
