import { jobCatalog, retryDelayMs } from './job-catalog';

describe('the job catalog retry waits', () => {
  it('double from backoffMs per failed attempt, up to maxBackoffMs', () => {
    const llm = jobCatalog['stage.llm'];
    const waits = Array.from({ length: llm.attempts - 1 }, (_, i) => retryDelayMs(llm, i + 1));
    expect(waits).toEqual([500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000]);
    expect(waits.reduce((a, b) => a + b, 0)).toBe(63_500); // a minute of provider errors ridden out
  });

  it('keep doubling where the entry sets no cap', () => {
    expect([1, 2, 3, 10].map((n) => retryDelayMs(jobCatalog['run.advance'], n))).toEqual([500, 1_000, 2_000, 256_000]);
  });
});
