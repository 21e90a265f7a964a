import { Queue } from 'bullmq';
// nx-ignore-next-line
import { testQueuePrefix, testRedisUrl } from '@sqlsweep/testing';
import { reconcileSchedulers } from './scheduler-reconciler';
import { parseSchedulesFile } from './schedules-file';

describe('reconciling job schedulers with the schedules file (real Redis)', () => {
  let queue: Queue;

  beforeAll(() => {
    queue = new Queue('schedules', { connection: { url: testRedisUrl() }, prefix: testQueuePrefix() });
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  const file = (yaml: string) => parseSchedulesFile(yaml, 'schedules.yaml');
  async function stored() {
    const schedulers = await queue.getJobSchedulers(0, -1, true);
    return Object.fromEntries(schedulers.map((s) => [s.key, { pattern: s.pattern, tz: s.tz, data: s.template?.data }]));
  }

  it('adds, keeps, changes and removes schedulers without duplicates', async () => {
    const first = file('schedules:\n  a:\n    cron: "0 2 * * *"\n    sweep: a.yaml\n  b:\n    cron: "0 3 * * *"\n    timezone: Europe/Berlin\n    sweep: b.yaml\n');
    expect(await reconcileSchedulers(queue, first)).toEqual({ added: ['a', 'b'], changed: [], removed: [], unchanged: [] });
    expect(await reconcileSchedulers(queue, first)).toEqual({ added: [], changed: [], removed: [], unchanged: ['a', 'b'] });
    expect(await stored()).toEqual({
      a: { pattern: '0 2 * * *', tz: 'UTC', data: { schedule: 'a' } },
      b: { pattern: '0 3 * * *', tz: 'Europe/Berlin', data: { schedule: 'b' } },
    });
    // One delayed job per scheduler: its next fire.
    expect(await queue.getDelayedCount()).toBe(2);

    const edited = file('schedules:\n  b:\n    cron: "30 4 * * *"\n    timezone: Europe/Berlin\n    sweep: b.yaml\n  c:\n    cron: "*/10 * * * * *"\n    sweep: c.yaml\n');
    expect(await reconcileSchedulers(queue, edited)).toEqual({ added: ['c'], changed: ['b'], removed: ['a'], unchanged: [] });
    expect(await reconcileSchedulers(queue, edited)).toEqual({ added: [], changed: [], removed: [], unchanged: ['b', 'c'] });
    expect(await stored()).toEqual({
      b: { pattern: '30 4 * * *', tz: 'Europe/Berlin', data: { schedule: 'b' } },
      c: { pattern: '*/10 * * * * *', tz: 'UTC', data: { schedule: 'c' } },
    });
    const next = await queue.getDelayed();
    expect(next.map((j) => j.name).sort()).toEqual(['schedule.fire', 'schedule.fire']);
    expect(next.map((j) => j.data.schedule).sort()).toEqual(['b', 'c']);

    expect(await reconcileSchedulers(queue, file('schedules: {}\n'))).toEqual({ added: [], changed: [], removed: ['b', 'c'], unchanged: [] });
    expect(await stored()).toEqual({});
    expect(await queue.getDelayedCount()).toBe(0);
  });
});
