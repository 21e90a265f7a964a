import { ThrottledWarnings } from './throttled-warnings';

describe('ThrottledWarnings', () => {
  const setUp = () => {
    const clock = { now: 0 };
    const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
    const warnings = new ThrottledWarnings((fields, msg) => lines.push({ fields: fields as Record<string, unknown>, msg }), { everyMs: 30_000, now: () => clock.now });
    return { clock, lines, warnings };
  };
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6399'), { code: 'ECONNREFUSED' });

  it('logs the first error of a kind at once, then one per interval with how many were left out', () => {
    const { clock, lines, warnings } = setUp();
    for (let i = 0; i < 100; i++, clock.now += 200) warnings.warn('redis', refused); // 20 s of reconnecting
    expect(lines).toEqual([{ fields: { source: 'redis', err: refused.message, code: 'ECONNREFUSED' }, msg: `redis: ${refused.message}` }]);
    clock.now = 30_000;
    warnings.warn('redis', refused);
    expect(lines).toHaveLength(2);
    expect(lines[1]!.fields).toMatchObject({ source: 'redis', repeatedSinceLastWarning: 100 });
  });

  it('logs a different message or source at once', () => {
    const { lines, warnings } = setUp();
    warnings.warn('redis', refused);
    warnings.warn('redis', new Error('WRONGPASS invalid username-password pair or user is disabled.'));
    warnings.warn('postgres', refused);
    warnings.listener('redis')(refused);
    expect(lines.map((l) => l.msg)).toEqual([
      `redis: ${refused.message}`,
      'redis: WRONGPASS invalid username-password pair or user is disabled.',
      `postgres: ${refused.message}`,
    ]);
  });

  it('counts one kind for messages that differ only in a job id (keys lost for a thousand jobs)', () => {
    const { lines, warnings } = setUp();
    for (let i = 0; i < 1000; i++) warnings.warn('redis', new Error(`Missing key for job ${(0xabcdef0123456789n + BigInt(i)).toString(16)}. moveToFinished`));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toMatch(/^redis: Missing key for job [0-9a-f]{16}\. moveToFinished$/);
  });

  it('names an AggregateError (every address of a host refused) by its first error', () => {
    const { lines, warnings } = setUp();
    warnings.warn('postgres', Object.assign(new AggregateError([refused], ''), { code: 'ECONNREFUSED' }));
    expect(lines[0]!.msg).toBe(`postgres: ${refused.message}`);
  });
});
