import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBundledEncoderForTests } from '@sqlsweep/retrieval';
import { queryRows } from '@sqlsweep/db';
import { createTestDatabase, minibenchDir, testRedisUrl, type TestDatabase } from '@sqlsweep/testing';

const repoRoot = join(__dirname, '..', '..', '..', '..');

/** `sqlsweep retriever eval` stores the curve the planner resolves threshold operating points from. */
describe('sqlsweep retriever eval stores its curve', () => {
  let t: TestDatabase;
  let work: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    work = mkdtempSync(join(tmpdir(), 'sqlsweep-retriever-store-'));
    cpSync(minibenchDir, join(work, 'minibench'), { recursive: true });
  });
  afterAll(async () => {
    await t?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('writes one retrieval_curves row per dataset, encoder and options, and rewrites it on a second run', async () => {
    const args = [join(repoRoot, 'bin', 'sqlsweep'), 'retriever', 'eval', '--format', 'minibench', '--path', join(work, 'minibench'),
      '--model-dir', ensureBundledEncoderForTests(), '--index-dir', join(work, 'indexes'), '--out', join(work, 'report.json'), '--thresholds', '2,4'];
    const env = { ...process.env, DATABASE_URL: t.url, REDIS_URL: testRedisUrl() };
    const first = await promisify(execFile)(process.execPath, args, { cwd: repoRoot, env });
    expect(first.stdout).toMatch(/curve stored for operating points: dataset [0-9a-f]{12}, encoder \S+, /);
    await promisify(execFile)(process.execPath, args, { cwd: repoRoot, env });
    const rows = await queryRows<{ options_key: string; points: Array<{ value: number; recall: number }> }>(t.db)`SELECT options_key, points FROM retrieval_curves`;
    expect(rows).toHaveLength(1);
    // The planner's fine grid is stored, not only the thresholds asked for: recall never rises with θ.
    const recalls = rows[0].points.map((p) => p.recall);
    expect(rows[0].points.length).toBeGreaterThan(20);
    expect(recalls.every((r, i) => i === 0 || r <= recalls[i - 1] + 1e-9)).toBe(true);
  }, 180_000);
});
