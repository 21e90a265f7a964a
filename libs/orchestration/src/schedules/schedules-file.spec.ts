import { join } from 'node:path';
import { loadSchedulesFile, parseSchedulesFile, SchedulesFileError } from './schedules-file';

function errorOf(text: string): SchedulesFileError {
  try {
    parseSchedulesFile(text, 'schedules.yaml');
  } catch (e) {
    if (e instanceof SchedulesFileError) return e;
    throw e;
  }
  throw new Error('expected a SchedulesFileError');
}

describe('schedules file', () => {
  it('reads the shipped configs/schedules.yaml', () => {
    const file = loadSchedulesFile(join(__dirname, '../../../../configs/schedules.yaml'));
    expect(file.schedules['demo-nightly']).toEqual({ cron: '0 2 * * *', timezone: 'UTC', sweep: 'configs/sweeps/demo.yaml' });
  });

  it('defaults the time zone to UTC and accepts a seconds field and a webhook', () => {
    const file = parseSchedulesFile('alerts:\n  webhookUrl: http://127.0.0.1:9/hook\nschedules:\n  fast:\n    cron: "*/3 * * * * *"\n    sweep: a.yaml\n', 's');
    expect(file).toEqual({ alerts: { webhookUrl: 'http://127.0.0.1:9/hook' }, schedules: { fast: { cron: '*/3 * * * * *', timezone: 'UTC', sweep: 'a.yaml' } } });
    expect(parseSchedulesFile('', 's')).toEqual({ alerts: {}, schedules: {} });
  });

  it('names the file, line, path and reason of a bad cron', () => {
    const e = errorOf('schedules:\n  nightly:\n    cron: "61 * * * *"\n    sweep: a.yaml\n');
    expect(e).toMatchObject({ source: 'schedules.yaml', path: 'schedules.nightly.cron', line: 3 });
    expect(e.message).toMatch(/^schedules\.yaml:3: schedules\.nightly\.cron: invalid cron expression "61 \* \* \* \*"/);
  });

  it('refuses an unknown time zone, a missing sweep, unknown keys, a bad name and a non-http webhook', () => {
    expect(errorOf('schedules:\n  n:\n    cron: "0 2 * * *"\n    timezone: Mars/Olympus\n    sweep: a.yaml\n')).toMatchObject({ path: 'schedules.n.timezone', line: 4, reason: expect.stringMatching(/IANA time zone/) });
    expect(errorOf('schedules:\n  n:\n    cron: "0 2 * * *"\n')).toMatchObject({ path: 'schedules.n.sweep', line: 2, reason: expect.stringMatching(/path of a sweep config/) });
    expect(errorOf('schedules:\n  n:\n    cron: "0 2 * * *"\n    sweep: a.yaml\n    every: day\n')).toMatchObject({ path: 'schedules.n', reason: 'unknown key(s) "every"' });
    expect(errorOf('schedules:\n  "bad name":\n    cron: "0 2 * * *"\n    sweep: a.yaml\n').path).toBe('schedules.bad name');
    expect(errorOf('alerts:\n  webhookUrl: ftp://x/y\n')).toMatchObject({ path: 'alerts.webhookUrl', line: 2 });
  });

  it('reports YAML syntax errors with their line and an unreadable file by name', () => {
    expect(errorOf('schedules:\n  n: [unclosed\n')).toMatchObject({ reason: expect.stringMatching(/^invalid YAML/) });
    expect(() => loadSchedulesFile('/nonexistent/schedules.yaml')).toThrow(/^\/nonexistent\/schedules\.yaml: cannot read the schedules file/);
  });
});
