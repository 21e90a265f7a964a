import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testRedisUrl } from '@sqlsweep/testing';

const repoRoot = join(__dirname, '..', '..', '..');

/**
 * A core given a bad model catalog throws, naming the file, before it opens a connection: the process that caught
 * the error then ends by itself (an opened Redis or Postgres connection would keep it alive, as it kept a Jest run).
 */
describe('OrchestratorCore with a bad model catalog', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlsweep-bad-catalog-'));
    writeFileSync(join(dir, 'models.yaml'), 'providers: {}\nmodels:\n  m: { provider: nowhere }\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('throws naming the file and leaves nothing open', async () => {
    const script = `
      const { OrchestratorCore } = require('@sqlsweep/orchestration');
      try {
        new OrchestratorCore({ databaseUrl: process.env.DATABASE_URL, redisUrl: ${JSON.stringify(testRedisUrl())}, queuePrefix: 'bad-catalog', modelsFile: ${JSON.stringify(join(dir, 'models.yaml'))} });
      } catch (e) { console.log(e.message); }`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: repoRoot, timeout: 30_000 });
    expect(stdout).toContain(join(dir, 'models.yaml'));
  }, 60_000);
});
