import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './e2e-processes';
import { createTestDatabase, type TestDatabase } from './test-database';
import { removeQueuePrefixKeys, testQueuePrefix } from './test-queues';

/** This test run's Redis: Jest's global set-up (test/global-setup.ts) puts it in REDIS_URL, started when missing. */
export function testRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** What every orchestrator core is built from (libs/orchestration's CoreSettings, less its optional parts). */
export interface TestCoreSettings {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  modelsFile: string;
  providerEnv: Record<string, string | undefined>;
}

export interface TestCore<C, S extends TestCoreSettings = TestCoreSettings> {
  core: C;
  /** The test file's own database (a fresh copy of the migrated template). */
  database: TestDatabase;
  settings: S;
  /** An empty temporary folder for the test's files (datasets' data, sweep configs), removed by `close()`. */
  dataDir: string;
  /** Closes the core, drops the database and removes the queue prefix's Redis keys and `dataDir`. */
  close(): Promise<void>;
}

/** The bundled benchmark as the unit set-up and `npm run setup` build it. */
export const minibenchDir = join(repoRoot, 'data', 'minibench', 'dist');

/**
 * An orchestrator core of the test file's own: a fresh database, a queue prefix no other file shares, the
 * repository's configs/models.yaml and the LLM simulator's URL on a closed port (nothing reaches a provider).
 * The test passes the core's class (libs/testing may not import libs/orchestration) and whatever settings differ.
 */
export async function createTestCore<C extends { close(): Promise<void> }, S extends TestCoreSettings>(
  Core: new (settings: S) => C,
  overrides: Partial<S> = {},
): Promise<TestCore<C, S>> {
  const database = await createTestDatabase();
  const defaults: TestCoreSettings = {
    databaseUrl: database.url,
    redisUrl: testRedisUrl(),
    queuePrefix: testQueuePrefix(),
    modelsFile: join(repoRoot, 'configs', 'models.yaml'),
    providerEnv: { SQLSWEEP_LLM_SIM_URL: 'http://127.0.0.1:9' },
  };
  // A core's settings beyond TestCoreSettings are optional (CoreSettings' are), so these make a whole S.
  const settings = { ...defaults, ...overrides } as S;
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlsweep-test-core-'));
  let core: C;
  try {
    core = new Core(settings);
  } catch (e) {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    core,
    database,
    settings,
    dataDir,
    close: async () => {
      await core.close();
      await database.drop();
      await removeQueuePrefixKeys(settings.redisUrl, settings.queuePrefix);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * createTestCore in a `beforeAll` and its `close()` in an `afterAll` of the calling describe block. The returned
 * object is filled in when that `beforeAll` has run: read its fields in hooks and tests, not at describe time.
 * Jest runs `afterAll` hooks in the order they are declared, so the core closes before those declared after this
 * call: a test with something to stop before the core (a thread, an app) uses createTestCore and closes it itself.
 */
export function useTestCore<C extends { close(): Promise<void> }, S extends TestCoreSettings>(
  Core: new (settings: S) => C,
  overrides: Partial<S> = {},
): TestCore<C, S> {
  const testCore = {} as TestCore<C, S>;
  beforeAll(async () => {
    Object.assign(testCore, await createTestCore(Core, overrides));
  });
  afterAll(async () => {
    await testCore.close?.();
  });
  return testCore;
}
