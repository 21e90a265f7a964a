import type { ParamSweepDto, VariantDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { pct } from '../lib/format';
import { href, type Route } from '../lib/router';
import { LinePlot } from '../components/charts';
import { Id } from '../components/Id';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';

type Scalar = string | number | boolean;

/**
 * EX against one knob (the first grid knob by default: θ, shots, temperature…), one line per setting of the other
 * knobs that vary, with 95 % intervals as error bars.
 */
export function ParamSweepPage({ runId, route }: { runId: string; route: Route }) {
  const variants = useApi<VariantDto[]>(`/runs/${runId}/variants`);
  const knobs = variants.data ? candidateKnobs(variants.data) : [];
  const knob = route.query.get('knob') ?? knobs[0];
  const sweep = useApi<ParamSweepDto>(knob ? `/runs/${runId}/param-sweep` : null, { knob });
  return (
    <section>
      <h1>Parameter sweep <span className="muted">· run <Id id={runId} href={href(['runs', runId])} /></span></h1>
      <label>knob{' '}
        <select aria-label="knob" data-testid="knob" value={knob ?? ''} onChange={(e) => { window.location.hash = href(['runs', runId, 'sweep'], { knob: e.target.value }); }}>
          {knobs.map((k) => <option key={k} value={k}>{k}</option>)}
        </select>
      </label>
      {knob && (
        <Status loaded={sweep}>
          {(d) => <SweepPlot d={d} />}
        </Status>
      )}
    </section>
  );
}

/** Knobs that vary among the run's variants, grid parameters first (the default), then pipeline, model, sampleIndex; the fixed ones last. */
export function candidateKnobs(variants: VariantDto[]): string[] {
  const values = new Map<string, Set<string>>();
  const add = (k: string, v: unknown) => { if (!values.has(k)) values.set(k, new Set()); values.get(k)!.add(JSON.stringify(v)); };
  for (const v of variants) for (const [k, x] of Object.entries(v.params)) add(k, x);
  for (const v of variants) { add('pipeline', v.pipeline); add('model', v.model); add('sampleIndex', v.sampleIndex); }
  const keys = [...values.keys()];
  return [...keys.filter((k) => values.get(k)!.size > 1), ...keys.filter((k) => values.get(k)!.size <= 1)];
}

/** A series' name from the other knobs that vary in this chart; knobs held at one value everywhere say nothing. */
export function seriesNames(series: Array<{ fixed: Record<string, Scalar> }>): string[] {
  const keys = [...new Set(series.flatMap((s) => Object.keys(s.fixed)))];
  const varying = keys.filter((k) => new Set(series.map((s) => JSON.stringify(s.fixed[k] ?? null))).size > 1);
  return series.map((s) => varying.map((k) => `${k}=${String(s.fixed[k] ?? '–')}`).join(', ') || 'all variants');
}

function SweepPlot({ d }: { d: ParamSweepDto }) {
  const numeric = d.values.every((v) => typeof v === 'number');
  // Categorical knobs (model names…) are placed at their index along the axis.
  const xOf = (v: Scalar) => (numeric ? (v as number) : d.values.findIndex((x) => x === v));
  const label = (x: number) => (numeric ? String(x) : String(d.values[x] ?? ''));
  const names = seriesNames(d.series);
  return (
    <div className="chart-box" data-testid="param-sweep">
      <LinePlot xLabel={d.knob} yLabel={`EX % (${d.scorer ?? 'no scorer recorded'})`} xFmt={label} xTicks={d.values.map(xOf)}
        series={d.series.map((s, i) => ({
          name: names[i],
          points: s.points.map((p) => ({ x: xOf(p.value), y: p.ex, low: p.low, high: p.high, title: `${p.label}: ${pct(p.ex)} [${pct(p.low)}, ${pct(p.high)}] (${p.items} items)` })),
        }))} />
      <p className="muted">Error bars: 95 % intervals (Wilson) over each variant’s items.</p>
      <Simulated on={d.simulated} />
      <div className="table-wrap">
        <table className="grid" data-testid="sweep-table">
          <thead><tr><th>{names.length > 1 ? 'series' : 'variants'}</th>{d.values.map((v) => <th key={String(v)} className="num">{d.knob} = {String(v)}</th>)}</tr></thead>
          <tbody>
            {d.series.map((s, i) => (
              <tr key={names[i]} data-testid="sweep-row">
                <td>{names[i]}</td>
                {d.values.map((v) => {
                  const p = s.points.find((x) => x.value === v);
                  return <td key={String(v)} className="num">{p ? <>{pct(p.ex)} <span className="muted interval">[{pct(p.low)}, {pct(p.high)}]</span></> : '–'}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
