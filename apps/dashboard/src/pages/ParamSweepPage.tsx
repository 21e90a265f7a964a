import type { ParamSweepDto, VariantDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { pct, shortId } from '../lib/format';
import { href, type Route } from '../lib/router';
import { LinePlot } from '../components/charts';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';

/** EX against one knob (θ, shots, temperature, model…), one line per setting of the other knobs. */
export function ParamSweepPage({ runId, route }: { runId: string; route: Route }) {
  const variants = useApi<VariantDto[]>(`/runs/${runId}/variants`);
  const knobs = variants.data ? candidateKnobs(variants.data) : [];
  const knob = route.query.get('knob') ?? knobs[0];
  const sweep = useApi<ParamSweepDto>(knob ? `/runs/${runId}/param-sweep` : null, { knob });
  return (
    <section>
      <h1>Parameter sweep <span className="muted">· run <a href={href(['runs', runId])}>{shortId(runId)}</a></span></h1>
      <label>knob{' '}
        <select aria-label="knob" value={knob ?? ''} onChange={(e) => { window.location.hash = href(['runs', runId, 'sweep'], { knob: e.target.value }); }}>
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

/** Knobs that take more than one value among the run's variants come first. */
function candidateKnobs(variants: VariantDto[]): string[] {
  const values = new Map<string, Set<string>>();
  const add = (k: string, v: unknown) => { if (!values.has(k)) values.set(k, new Set()); values.get(k)!.add(String(v)); };
  for (const v of variants) {
    add('model', v.model); add('pipeline', v.pipeline); add('sampleIndex', v.sampleIndex);
    for (const [k, x] of Object.entries(v.params)) add(k, x);
  }
  return [...values.entries()].sort((a, b) => (b[1].size > 1 ? 1 : 0) - (a[1].size > 1 ? 1 : 0)).map(([k]) => k);
}

function SweepPlot({ d }: { d: ParamSweepDto }) {
  const numeric = d.values.every((v) => typeof v === 'number');
  // Categorical knobs (model names…) are placed at their index along the axis.
  const xOf = (v: string | number | boolean) => (numeric ? (v as number) : d.values.findIndex((x) => x === v));
  const label = (x: number) => (numeric ? String(x) : String(d.values[x] ?? ''));
  const seriesName = (fixed: Record<string, unknown>) => Object.entries(fixed).map(([k, v]) => `${k}=${String(v)}`).join(', ') || 'all';
  return (
    <div className="chart-box" data-testid="param-sweep">
      <LinePlot xLabel={d.knob} yLabel={`EX % (${d.scorer ?? 'no scorer recorded'})`} xFmt={label} xTicks={d.values.map(xOf)}
        series={d.series.map((s) => ({ name: seriesName(s.fixed), points: s.points.map((p) => ({ x: xOf(p.value), y: p.ex, title: `${p.label}: ${pct(p.ex)} (${p.items} items)` })) }))} />
      <Simulated on={d.simulated} />
      <table className="grid">
        <thead><tr><th>others fixed</th>{d.values.map((v) => <th key={String(v)} className="num">{d.knob} = {String(v)}</th>)}</tr></thead>
        <tbody>
          {d.series.map((s) => (
            <tr key={seriesName(s.fixed)}>
              <td>{seriesName(s.fixed)}</td>
              {d.values.map((v) => { const p = s.points.find((x) => x.value === v); return <td key={String(v)} className="num">{p ? pct(p.ex) : '–'}</td>; })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
