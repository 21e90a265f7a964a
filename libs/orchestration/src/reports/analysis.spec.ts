import { scorerWarning } from './comparison';
import { paretoFlags } from './pareto';
import { paramSweep, varyingKnobs, type KnobVariant } from './param-sweep';

describe('paretoFlags', () => {
  it('keeps the points no other point beats on both cost and accuracy', () => {
    const points = [
      { ex: 60, costUsd: 1 }, // front: cheapest
      { ex: 70, costUsd: 2 }, // front
      { ex: 65, costUsd: 3 }, // dominated by 70 @ 2
      { ex: 70, costUsd: 2.5 }, // dominated: same EX, costlier
      { ex: 80, costUsd: 5 }, // front: most accurate
    ];
    expect(paretoFlags(points)).toEqual([true, true, false, false, true]);
  });

  it('keeps identical points both', () => {
    expect(paretoFlags([{ ex: 50, costUsd: 1 }, { ex: 50, costUsd: 1 }])).toEqual([true, true]);
  });
});

describe('paramSweep', () => {
  const v = (id: string, knobs: KnobVariant['knobs'], ex: number): KnobVariant => ({ variantId: id, label: id, knobs, ex, items: 10, simulated: true, low: ex - 5, high: ex + 5 });

  it('draws one line per combination of the other knobs, ordered by the knob', () => {
    const out = paramSweep([
      v('a', { model: 'm1', shots: 4 }, 40), v('b', { model: 'm1', shots: 0 }, 20), v('c', { model: 'm2', shots: 0 }, 30),
      v('d', { model: 'm1', shots: 8 }, 50), v('e', { model: 'm2' }, 99),
    ], 'shots');
    expect(out.values).toEqual([0, 4, 8]);
    expect(out.series).toEqual([
      { fixed: { model: 'm1' }, points: [expect.objectContaining({ value: 0, ex: 20 }), expect.objectContaining({ value: 4, ex: 40 }), expect.objectContaining({ value: 8, ex: 50 })] },
      { fixed: { model: 'm2' }, points: [expect.objectContaining({ value: 0, ex: 30, variantId: 'c' })] },
    ]);
  });

  it('carries the interval of each point', () => {
    expect(paramSweep([v('a', { shots: 4 }, 40)], 'shots').series[0].points[0]).toEqual(expect.objectContaining({ low: 35, high: 45 }));
  });

  it('lists the knobs that vary, grid parameters before pipeline, model and sampleIndex', () => {
    const knobs = (model: string, shots: number, t: number) => ({ knobs: { pipeline: 'p', model, sampleIndex: 0, shots, temperature: t } });
    expect(varyingKnobs([knobs('m1', 0, 0), knobs('m2', 4, 0), knobs('m1', 8, 0)])).toEqual(['shots', 'model']);
  });

  it('returns nothing for a knob no variant has', () => {
    expect(paramSweep([v('a', { model: 'm1' }, 1)], 'theta')).toEqual({ values: [], series: [] });
  });
});

describe('scorerWarning', () => {
  it('says nothing when both sides name the same scorer, or neither names one', () => {
    expect(scorerWarning('bird-ex@2', 'bird-ex@2')).toBeNull();
    expect(scorerWarning(null, null)).toBeNull();
  });

  it('names both scorers when they differ, a version change included', () => {
    expect(scorerWarning('bird-ex@2', 'bird-ex-bag@1')).toMatch(/^A was scored by bird-ex@2, B by bird-ex-bag@1: EX under different scorers is not comparable/);
    expect(scorerWarning('spider-ex@1', 'spider-ex@2')).toMatch(/spider-ex@1, B by spider-ex@2/);
    expect(scorerWarning(null, 'bird-ex@2')).toMatch(/A was scored by no named scorer \(stored before scorers were named\), B by bird-ex@2/);
  });

  it('warns when a side mixes scorers', () => {
    expect(scorerWarning('bird-ex@2,bird-ex-bag@1', 'bird-ex@2')).toMatch(/side A mixes the scorers bird-ex@2,bird-ex-bag@1/);
  });
});
