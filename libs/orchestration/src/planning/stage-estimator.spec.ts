import type { LlmCall } from '@sqlsweep/pipelines';
import { PriceMemo } from './stage-estimator';

const call = (user: string, over: Partial<LlmCall> = {}): LlmCall => ({
  model: 'm1', temperature: 0, maxTokens: 100, sampleIndex: 0, templateVersion: 't',
  messages: [{ role: 'system', content: 'You write SQL.' }, { role: 'user', content: user }], ...over,
});

describe('PriceMemo', () => {
  it('prices a call once per item, and apart any call estimateCall would read differently', () => {
    const priced: LlmCall[] = [];
    const memo = new PriceMemo((c) => {
      priced.push(c);
      return { inputTokens: priced.length, outputTokens: 0, costUsd: 0 };
    });
    const first = memo.price('i1', call('SELECT 1'));
    // Same content, new strings and objects, another temperature and sample: remembered.
    expect(memo.price('i1', call(['SELECT', '1'].join(' '), { temperature: 0.7, sampleIndex: 2 }))).toBe(first);
    // Same length of the last message, or the same last message, but something estimateCall reads differs.
    const different = [
      call('SELECT 2'), call('SELECT 1', { model: 'm2' }), call('SELECT 1', { maxTokens: 200 }), call('SELECT 1', { expectedOutputTokens: 5 }),
      call('SELECT 1', { messages: [{ role: 'system', content: 'You write SQ!.' }, { role: 'user', content: 'SELECT 1' }] }),
      call('SELECT 1', { messages: [{ role: 'user', content: 'You write SQL.' }, { role: 'user', content: 'SELECT 1' }] }),
      call('SELECT 1', { messages: [{ role: 'user', content: 'SELECT 1' }] }),
    ];
    for (const c of different) expect(memo.price('i1', c)).not.toBe(first);
    expect(priced).toHaveLength(1 + different.length);
    // Each of them is remembered in turn; the next item starts afresh.
    for (const c of different) memo.price('i1', c);
    expect(priced).toHaveLength(1 + different.length);
    memo.price('i2', call('SELECT 1'));
    expect(priced).toHaveLength(2 + different.length);
  });
});
