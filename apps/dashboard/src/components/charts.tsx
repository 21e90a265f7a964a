import { useState } from 'react';

/** Plain SVG charts: a scatter with a Pareto front, a line plot, and signed bars. */
const W = 560;
const H = 300;
const M = { l: 56, r: 16, t: 14, b: 40 };

function ticks(lo: number, hi: number, n = 5): number[] {
  if (hi === lo) return [lo];
  return Array.from({ length: n + 1 }, (_, i) => lo + ((hi - lo) * i) / n);
}

function extent(values: number[], pad = 0.08): [number, number] {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) { lo -= Math.abs(lo) * 0.1 || 1; hi += Math.abs(hi) * 0.1 || 1; }
  const p = (hi - lo) * pad;
  return [lo - p, hi + p];
}

function Axes({ x, y, xLabel, yLabel, xFmt, yFmt }: {
  x: [number, number]; y: [number, number]; xLabel: string; yLabel: string; xFmt: (v: number) => string; yFmt: (v: number) => string;
}) {
  const sx = (v: number) => M.l + ((v - x[0]) / (x[1] - x[0])) * (W - M.l - M.r);
  const sy = (v: number) => H - M.b - ((v - y[0]) / (y[1] - y[0])) * (H - M.t - M.b);
  return (
    <g className="axes">
      <line x1={M.l} y1={H - M.b} x2={W - M.r} y2={H - M.b} />
      <line x1={M.l} y1={M.t} x2={M.l} y2={H - M.b} />
      {ticks(x[0], x[1]).map((t) => <text key={`x${t}`} x={sx(t)} y={H - M.b + 16} textAnchor="middle">{xFmt(t)}</text>)}
      {ticks(y[0], y[1]).map((t) => <text key={`y${t}`} x={M.l - 6} y={sy(t) + 4} textAnchor="end">{yFmt(t)}</text>)}
      <text x={(M.l + W - M.r) / 2} y={H - 6} textAnchor="middle" className="axis-label">{xLabel}</text>
      <text x={14} y={(M.t + H - M.b) / 2} textAnchor="middle" className="axis-label" transform={`rotate(-90 14 ${(M.t + H - M.b) / 2})`}>{yLabel}</text>
    </g>
  );
}

export interface ScatterPoint { id: string; label: string; x: number; y: number; highlight: boolean; group?: string }

/** Cost (x) against EX (y); the highlighted points (the Pareto front) are joined by a step line. */
export function ParetoScatter({ points, xLabel, yLabel, xFmt }: { points: ScatterPoint[]; xLabel: string; yLabel: string; xFmt: (v: number) => string }) {
  const [hover, setHover] = useState<string | null>(null);
  if (points.length === 0) return <p className="muted">no points</p>;
  const x = extent(points.map((p) => p.x));
  const y = extent(points.map((p) => p.y));
  const sx = (v: number) => M.l + ((v - x[0]) / (x[1] - x[0])) * (W - M.l - M.r);
  const sy = (v: number) => H - M.b - ((v - y[0]) / (y[1] - y[0])) * (H - M.t - M.b);
  const front = points.filter((p) => p.highlight).sort((a, b) => a.x - b.x);
  const groups = [...new Set(points.map((p) => p.group ?? ''))];
  return (
    <svg className="chart" viewBox={`0 0 ${W} ${H}`} data-testid="pareto-scatter">
      <Axes x={x} y={y} xLabel={xLabel} yLabel={yLabel} xFmt={xFmt} yFmt={(v) => v.toFixed(0)} />
      {front.length > 1 && <polyline className="front" points={front.map((p) => `${sx(p.x)},${sy(p.y)}`).join(' ')} />}
      {points.map((p) => (
        <g key={p.id} onMouseEnter={() => setHover(p.id)} onMouseLeave={() => setHover(null)}>
          <circle cx={sx(p.x)} cy={sy(p.y)} r={p.highlight ? 6 : 4.5} className={`pt g${groups.indexOf(p.group ?? '') % 4} ${p.highlight ? 'on-front' : ''}`}
            data-testid="scatter-point" data-pareto={p.highlight} data-label={p.label} />
          {(hover === p.id || points.length <= 8) && (
            // Labels of points on the right half go to their left, so they stay inside the plot.
            <text x={sx(p.x) + (sx(p.x) > W / 2 ? -8 : 8)} y={sy(p.y) - 8} textAnchor={sx(p.x) > W / 2 ? 'end' : 'start'} className="pt-label">{p.label}</text>
          )}
        </g>
      ))}
    </svg>
  );
}

export interface Series { name: string; points: { x: number; y: number; marked?: boolean; title?: string; low?: number; high?: number }[] }

/**
 * `n` colours that do not repeat: evenly spaced hues, alternating two lightnesses, all dark enough for 3:1 against
 * white (lines and marks). A chart never reuses a colour, however many series it has.
 */
export function palette(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `hsl(${Math.round((i * 360) / Math.max(n, 1) + 215) % 360} ${i % 2 ? 70 : 60}% ${i % 2 ? 30 : 38}%)`);
}

/** Line plot of one or more series; `marked` points (e.g. regressions) are drawn as red rings, `low`/`high` as error bars. */
export function LinePlot({ series, xLabel, yLabel, xFmt, xTicks }: {
  series: Series[]; xLabel: string; yLabel: string; xFmt: (v: number) => string; xTicks?: number[];
}) {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return <p className="muted">no points</p>;
  const x = extent(all.map((p) => p.x), 0.05);
  const y = extent(all.flatMap((p) => [p.y, p.low ?? p.y, p.high ?? p.y]));
  const sx = (v: number) => M.l + ((v - x[0]) / (x[1] - x[0])) * (W - M.l - M.r);
  const sy = (v: number) => H - M.b - ((v - y[0]) / (y[1] - y[0])) * (H - M.t - M.b);
  const colours = palette(series.length);
  // Series sharing an x are nudged apart so their error bars do not hide each other.
  const nudge = (i: number) => (series.length > 1 ? (i - (series.length - 1) / 2) * Math.min(4, 40 / series.length) : 0);
  return (
    <div>
      <svg className="chart" viewBox={`0 0 ${W} ${H}`} data-testid="line-plot" role="img" aria-label={`${yLabel} by ${xLabel}`}>
        <Axes x={x} y={y} xLabel={xLabel} yLabel={yLabel} xFmt={() => ''} yFmt={(v) => v.toFixed(0)} />
        {(xTicks ?? [...new Set(all.map((p) => p.x))]).map((t) => (
          <text key={`t${t}`} x={sx(t)} y={H - M.b + 16} textAnchor="middle">{xFmt(t)}</text>
        ))}
        {series.map((s, i) => (
          <g key={s.name} className="series" style={{ color: colours[i] }} data-testid="series" data-colour={colours[i]}>
            <polyline stroke="currentColor" points={[...s.points].sort((a, b) => a.x - b.x).map((p) => `${sx(p.x) + nudge(i)},${sy(p.y)}`).join(' ')} />
            {s.points.map((p, j) => (
              <g key={j}>
                {p.low !== undefined && p.high !== undefined && (
                  <g className="error-bar" data-testid="error-bar" stroke="currentColor">
                    <line x1={sx(p.x) + nudge(i)} x2={sx(p.x) + nudge(i)} y1={sy(p.low)} y2={sy(p.high)} />
                    <line x1={sx(p.x) + nudge(i) - 3} x2={sx(p.x) + nudge(i) + 3} y1={sy(p.low)} y2={sy(p.low)} />
                    <line x1={sx(p.x) + nudge(i) - 3} x2={sx(p.x) + nudge(i) + 3} y1={sy(p.high)} y2={sy(p.high)} />
                  </g>
                )}
                <circle fill="currentColor" cx={sx(p.x) + nudge(i)} cy={sy(p.y)} r={3.5}><title>{p.title ?? `${s.name}: ${p.y.toFixed(2)}`}</title></circle>
                {p.marked && <circle className="regression-mark" data-testid="regression-mark" cx={sx(p.x) + nudge(i)} cy={sy(p.y)} r={9} />}
              </g>
            ))}
          </g>
        ))}
      </svg>
      <ul className="legend" data-testid="legend">
        {series.map((s, i) => <li key={s.name} className="legend-item"><span className="swatch" style={{ background: colours[i] }} aria-hidden="true" />{s.name}</li>)}
      </ul>
    </div>
  );
}

/** Horizontal bars for signed values (deltas), zero in the middle. */
export function DeltaBars({ rows, fmt }: { rows: { label: string; value: number }[]; fmt: (v: number) => string }) {
  const max = Math.max(1, ...rows.map((r) => Math.abs(r.value)));
  return (
    <div className="delta-bars">
      {rows.map((r) => (
        <div key={r.label} className="delta-row">
          <span className="delta-label">{r.label}</span>
          <span className="delta-track">
            <span className={`delta-bar ${r.value < 0 ? 'neg' : 'pos'}`}
              style={{ width: `${(50 * Math.abs(r.value)) / max}%`, left: r.value < 0 ? `${50 - (50 * Math.abs(r.value)) / max}%` : '50%' }} />
          </span>
          <span className="delta-value">{fmt(r.value)}</span>
        </div>
      ))}
    </div>
  );
}
