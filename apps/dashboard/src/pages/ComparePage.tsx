import type { ComparisonDto, CostAccuracyDto, RunSummaryDto, VariantDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';
import { exLabel, pct, pValue, shortId, signedPp, usd, when } from '../lib/format';
import { paretoFront } from '../lib/pareto';
import { href, type Route } from '../lib/router';
import { DeltaBars, ParetoScatter } from '../components/charts';
import { Simulated } from '../components/Simulated';
import { Status } from '../components/Status';

const sides = ['runA', 'variantA', 'runB', 'variantB'] as const;
type Sides = Record<(typeof sides)[number], string | undefined>;

/** Compare two variants (of one run or of two runs): EX delta with its bootstrap interval, McNemar, flips. */
export function ComparePage({ route }: { route: Route }) {
  const sel = Object.fromEntries(sides.map((k) => [k, route.query.get(k) ?? undefined])) as Sides;
  const ready = sel.runA !== undefined && sel.runB !== undefined;
  const cmp = useApi<ComparisonDto>(ready ? '/compare' : null, { ...sel });
  return (
    <section>
      <h1>Compare</h1>
      <Pickers sel={sel} />
      {ready && (
        <Status loaded={cmp}>
          {(c) => <Comparison c={c} />}
        </Status>
      )}
    </section>
  );
}

function Pickers({ sel }: { sel: Sides }) {
  const runs = useApi<RunSummaryDto[]>('/runs', { limit: 200 });
  const set = (patch: Partial<Sides>) => { window.location.hash = href(['compare'], { ...sel, ...patch }); };
  return (
    <div className="pickers">
      {(['A', 'B'] as const).map((side) => {
        const runKey = side === 'A' ? 'runA' : 'runB';
        const variantKey = side === 'A' ? 'variantA' : 'variantB';
        return (
          <div key={side} className="picker">
            <strong>{side}</strong>
            <select aria-label={`run ${side}`} value={sel[runKey] ?? ''} onChange={(e) => set({ [runKey]: e.target.value || undefined, [variantKey]: undefined })}>
              <option value="">pick a run</option>
              {runs.data?.map((r) => <option key={r.id} value={r.id}>{r.sweepName} · {shortId(r.id)} · {when(r.createdAt)}</option>)}
            </select>
            {sel[runKey] && <VariantPicker runId={sel[runKey]} side={side} value={sel[variantKey]} onChange={(v) => set({ [variantKey]: v })} />}
          </div>
        );
      })}
    </div>
  );
}

function VariantPicker({ runId, side, value, onChange }: { runId: string; side: string; value?: string; onChange: (v: string | undefined) => void }) {
  const variants = useApi<VariantDto[]>(`/runs/${runId}/variants`);
  return (
    <select aria-label={`variant ${side}`} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
      <option value="">same variant as the other side / the only one</option>
      {variants.data?.map((v) => <option key={v.id} value={v.id}>{v.label}</option>)}
    </select>
  );
}

function Comparison({ c }: { c: ComparisonDto }) {
  const significant = c.interval.low > 0 || c.interval.high < 0;
  return (
    <div data-testid="comparison">
      {c.scorerWarning && <div className="warning" role="alert" data-testid="scorer-warning">Different scorers: {c.scorerWarning}</div>}
      <table className="grid sides">
        <thead><tr><th /><th>variant</th><th>run</th><th className="num">items</th><th className="num">correct</th><th className="num">EX %</th><th>scorer</th><th className="num">cost</th></tr></thead>
        <tbody>
          {([['A', c.a], ['B', c.b]] as const).map(([name, s]) => (
            <tr key={name} data-testid={`side-${name}`}>
              <th>{name}</th>
              <td>{s.label} <Simulated on={s.simulated} /></td>
              <td><a href={href(['runs', s.runId])}>{shortId(s.runId)}</a></td>
              <td className="num">{s.items}</td>
              <td className="num" data-col="correct">{s.correct}</td>
              <td className="num" data-col="ex">{pct(s.ex)}</td>
              <td className="muted" data-col="scorer">{s.scorer ?? '–'}</td>
              <td className="num">{usd(s.costUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="headline">
        {/* Coloured only when the interval excludes zero: an insignificant delta is not a win or a loss. */}
        <div className={`delta ${significant && c.delta > 0 ? 'pos' : significant && c.delta < 0 ? 'neg' : ''}`} data-testid="compare-delta-box" data-significant={significant ? 'true' : 'false'}>
          <span className="big" data-testid="compare-delta">{signedPp(c.delta)}</span>
          <span>EX(B) − EX(A) on {c.pairedItems} paired items</span>
        </div>
        <div>
          <span className="big" data-testid="compare-interval">[{c.interval.low.toFixed(2)}, {c.interval.high.toFixed(2)}]</span>
          <span>{Math.round(c.interval.confidence * 100)} % paired bootstrap interval ({c.interval.resamples.toLocaleString('en-US')} resamples){significant ? ' — excludes zero' : ' — includes zero'}</span>
        </div>
        <div>
          <span className="big" data-testid="mcnemar-p">p = {pValue(c.mcnemar.pValue)}</span>
          <span>McNemar ({c.mcnemar.exact ? 'exact binomial' : `χ² = ${c.mcnemar.statistic.toFixed(3)}`}): {c.mcnemar.onlyA} right only under A, {c.mcnemar.onlyB} only under B</span>
        </div>
        <Simulated on={c.simulated} />
      </div>
      <h2>Per difficulty</h2>
      <table className="grid" data-testid="difficulty-deltas">
        <thead><tr><th>difficulty</th><th className="num">items</th><th className="num">EX A</th><th className="num">EX B</th><th className="num">delta</th></tr></thead>
        <tbody>
          {c.byDifficulty.map((d) => (
            <tr key={d.difficulty}><td>{d.difficulty}</td><td className="num">{d.items}</td><td className="num">{pct(d.exA)}</td><td className="num">{pct(d.exB)}</td><td className="num">{signedPp(d.delta)}</td></tr>
          ))}
        </tbody>
      </table>
      <DeltaBars rows={c.byDifficulty.map((d) => ({ label: d.difficulty, value: d.delta }))} fmt={signedPp} />
      <div className="flips">
        <FlipList title={`Improved: right under B, wrong under A (${c.flipped.improved.length})`} runId={c.b.runId} items={c.flipped.improved} testId="flipped-improved" />
        <FlipList title={`Regressed: right under A, wrong under B (${c.flipped.regressed.length})`} runId={c.a.runId} items={c.flipped.regressed} testId="flipped-regressed" />
      </div>
      <h2>Cost against accuracy</h2>
      <CompareScatter runIds={[...new Set([c.a.runId, c.b.runId])]} picked={[c.a.variantId, c.b.variantId]} />
    </div>
  );
}

function FlipList({ title, runId, items, testId }: { title: string; runId: string; items: string[]; testId: string }) {
  return (
    <div>
      <h3>{title}</h3>
      <ul className="flip-list" data-testid={testId}>
        {items.map((id) => <li key={id}><a href={href(['runs', runId, 'items', id])}>{id}</a></li>)}
      </ul>
    </div>
  );
}

/** Every variant of the compared run(s); across two runs the Pareto front is taken over both. */
function CompareScatter({ runIds, picked }: { runIds: string[]; picked: string[] }) {
  const first = useApi<CostAccuracyDto>(`/runs/${runIds[0]}/cost-accuracy`);
  const second = useApi<CostAccuracyDto>(runIds[1] ? `/runs/${runIds[1]}/cost-accuracy` : null);
  if (first.error || second.error) return <div className="error">API error: {(first.error ?? second.error)!.message}</div>;
  if (!first.data || (runIds[1] && !second.data)) return <div className="loading">loading…</div>;
  const points = [...first.data.points, ...(second.data?.points ?? [])];
  const front = runIds.length > 1 ? paretoFront(points) : new Set(points.filter((p) => p.pareto));
  return (
    <div className="chart-box">
      <ParetoScatter xLabel="cost (USD)" yLabel={exLabel(points.map((p) => p.scorer))} xFmt={(v) => `$${v.toFixed(3)}`}
        points={points.map((p) => ({
          id: `${p.runId}/${p.variantId}`, label: `${picked[0] === p.variantId ? 'A: ' : picked[1] === p.variantId ? 'B: ' : ''}${p.label}${runIds.length > 1 ? ` (${shortId(p.runId)})` : ''}`,
          x: p.costUsd, y: p.ex, highlight: front.has(p), group: p.runId,
        }))} />
      {points.some((p) => p.simulated) && <Simulated on />}
    </div>
  );
}
