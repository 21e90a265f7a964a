import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue } from 'bullmq';
import { queueKeyPrefix } from '@sqlsweep/queue';
import { appEnvSchemas, parseEnv } from '@sqlsweep/config';
import { OrchestratorCore } from '@sqlsweep/orchestration';
// nx-ignore-next-line
import { createTestCore, type TestCore } from '@sqlsweep/testing';
import { BearerGuard } from '../bearer.guard';
import { ORCHESTRATOR_CORE, ORCHESTRATOR_ENV } from '../tokens';
import { schedulesControllers, schedulesProviders } from './index';

describe('the orchestrator schedules provider and endpoints (real Redis and Postgres)', () => {
  let testCore: TestCore<OrchestratorCore>;
  let app: INestApplication;
  let url: string;
  let queue: Queue;

  beforeAll(async () => {
    testCore = await createTestCore(OrchestratorCore);
    const { core, database, settings } = testCore;
    const file = join(testCore.dataDir, 'schedules.yaml');
    writeFileSync(file, 'schedules:\n  nightly-demo:\n    cron: "0 2 * * *"\n    timezone: Europe/Berlin\n    sweep: configs/sweeps/demo.yaml\n');
    const env = {
      ...parseEnv(appEnvSchemas.orchestrator, { DATABASE_URL: database.url, REDIS_URL: settings.redisUrl, SQLSWEEP_QUEUE_PREFIX: settings.queuePrefix, PORT: '0', SQLSWEEP_OPEN_READS: '1' }),
      SQLSWEEP_SCHEDULES_FILE: file,
    };
    @Module({
      controllers: [...schedulesControllers],
      providers: [{ provide: ORCHESTRATOR_ENV, useValue: env }, { provide: ORCHESTRATOR_CORE, useValue: core }, BearerGuard, ...schedulesProviders],
    })
    class TestModule {}
    app = await NestFactory.create(TestModule, { logger: ['error'] });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    queue = new Queue('schedules', { connection: { url: env.REDIS_URL }, prefix: queueKeyPrefix(settings.queuePrefix, 'schedules') });
  });
  afterAll(async () => {
    await app?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await testCore?.close();
  });

  it('reconciles the job schedulers from the schedules file at start', async () => {
    const schedulers = await queue.getJobSchedulers(0, -1);
    expect(schedulers.map((s) => [s.key, s.pattern, s.tz])).toEqual([['nightly-demo', '0 2 * * *', 'Europe/Berlin']]);
  });

  it('lists the schedules with their next fire and no runs yet', async () => {
    const res = await fetch(`${url}/schedules`);
    expect(res.status).toBe(200);
    const [s] = (await res.json()) as Array<{ name: string; nextFireAt: string; lastRun: unknown }>;
    expect(s).toMatchObject({ name: 'nightly-demo', cron: '0 2 * * *', timezone: 'Europe/Berlin', sweep: 'configs/sweeps/demo.yaml', lastRun: null });
    // 02:00 in Berlin is 01:00 UTC in winter.
    expect(new Date(s.nextFireAt).getUTCHours()).toBe(1);
    expect(new Date(s.nextFireAt).getTime()).toBeGreaterThan(Date.now());
    expect(await (await fetch(`${url}/schedules/nightly-demo/runs`)).json()).toEqual([]);
    expect(await (await fetch(`${url}/alerts`)).json()).toEqual([]);
  });

  it('answers 404 for an unknown schedule and 400 for a bad limit', async () => {
    const unknown = await fetch(`${url}/schedules/nope/runs`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toMatch(/no schedule \\?"nope\\?"/);
    const bad = await fetch(`${url}/alerts?limit=0`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/limit: expected an integer from 1 to 1000/);
  });
});
