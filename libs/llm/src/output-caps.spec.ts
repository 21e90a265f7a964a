import { OutputCaps } from './output-caps';

describe('OutputCaps', () => {
  const settings = { minObservations: 5, quantile: 0.99, headroom: 1.5, slack: 16, window: 10 };

  it("sends the stage's own limit until it has seen enough answers of that stage on that model", () => {
    const caps = new OutputCaps(settings);
    for (let i = 0; i < 4; i++) caps.observe('gpt', 'r3.sql', 25);
    expect(caps.capFor('gpt', 'r3.sql', 512)).toBe(512);
    caps.observe('gpt', 'r3.sql', 25);
    expect(caps.capFor('gpt', 'r3.sql', 512)).toBe(Math.ceil(25 * 1.5) + 16);
  });

  it('learns per model and per stage, never above the limit, and not for calls with no stage', () => {
    const caps = new OutputCaps(settings);
    for (let i = 0; i < 5; i++) {
      caps.observe('gpt', 'a', 10 + i);
      caps.observe('gpt', 'b', 400);
      caps.observe('gpt', undefined, 1);
    }
    expect(caps.capFor('gpt', 'a', 512)).toBe(Math.ceil(14 * 1.5) + 16);
    expect(caps.capFor('gpt', 'b', 512)).toBe(512);
    expect(caps.capFor('claude', 'a', 512)).toBe(512);
    expect(caps.capFor('gpt', undefined, 512)).toBe(512);
  });

  it('follows the most recent answers (a window), so a stage whose answers grow gets a larger cap', () => {
    const caps = new OutputCaps(settings);
    for (let i = 0; i < 10; i++) caps.observe('gpt', 'a', 10);
    expect(caps.capFor('gpt', 'a', 1000)).toBe(31);
    for (let i = 0; i < 10; i++) caps.observe('gpt', 'a', 100);
    expect(caps.capFor('gpt', 'a', 1000)).toBe(166);
  });

  it('asks again with the full limit only when an answer filled a cap below the limit', () => {
    expect(OutputCaps.needsFullLimit(40, 512, 40)).toBe(true);
    expect(OutputCaps.needsFullLimit(40, 512, 39)).toBe(false);
    expect(OutputCaps.needsFullLimit(512, 512, 512)).toBe(false);
  });
});
