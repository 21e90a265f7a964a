import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMinibench } from '@sqlsweep/minibench';
import { runIdOf } from './support/cli-output';
import { repoRoot, runCli, startWorkers, type Proc } from '@sqlsweep/testing';
import { E2eStack } from './support/e2e-stack';

jest.setTimeout(120_000);

const ITEMS = 4;

/**
 * Two checkouts of one commit on one machine, sharing Postgres: minibench is built in each, registered from the
 * first with the default data directory (relative to that checkout), and swept by a worker started in a third
 * directory with its own SQLSWEEP_DATA_DIR, the first checkout's replicas deleted before.
 */
describe('datasets that travel: a version registered in one checkout, swept by workers anywhere', () => {
  const stack = new E2eStack();
  const root = mkdtempSync(join(tmpdir(), 'sqlsweep-travel-'));
  const checkoutA = join(root, 'checkout-a');
  const checkoutB = join(root, 'checkout-b');
  const workerCwd = join(root, 'worker-host');
  let workers: Proc[] = [];
  let config: string;

  /** What a user of a checkout has: the shared services and the repository's config files, nothing else. */
  const env = () => ({
    ...stack.env, SQLSWEEP_DATA_DIR: '.sqlsweep',
    SQLSWEEP_MODELS_FILE: join(repoRoot, 'configs/models.yaml'), SQLSWEEP_CORPUS_DIR: join(repoRoot, 'data'),
  });
  const cliIn = (cwd: string, args: string[]) => runCli(args, env(), 90_000, cwd);

  beforeAll(async () => {
    await stack.start({});
    for (const checkout of [checkoutA, checkoutB]) {
      await buildMinibench({ outDir: join(checkout, 'data/minibench/dist'), force: true });
    }
    mkdirSync(workerCwd);
    config = join(root, 'travel.yaml');
    writeFileSync(config, [
      'name: travel', 'dataset: minibench', 'split: dev', `items: { limit: ${ITEMS} }`, 'models: [sim-strong]',
      'pipelines:', '  - pipeline: zero-shot', '    grid:', '      temperature: [0]', 'seed: 7', '',
    ].join('\n'));
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await stack.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('gives every item a result from a worker elsewhere, and the other checkout registers the same version and plans 0 jobs', async () => {
    const addA = await cliIn(checkoutA, ['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist']);
    expect(addA).toMatchObject({ code: 0, stderr: '' });
    const hash = /^registered: minibench@([0-9a-f]{12}) /m.exec(addA.stdout)?.[1];
    expect(hash).toBeDefined();
    expect(addA.stdout).toMatch(/dataset store: \d+ file\(s\) stored \([\d.]+ \w+\), 0 already there/);

    rmSync(join(checkoutA, '.sqlsweep'), { recursive: true, force: true });
    workers = startWorkers(1, { ...env(), SQLSWEEP_DATA_DIR: 'worker-data' }, undefined, workerCwd);

    const first = await cliIn(checkoutA, ['run', config, '--workers', '0', '--no-progress']);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    const firstRun = runIdOf(first.stdout);
    const results = await stack.db.selectFrom('item_results').select(['item_id', 'errored']).where('run_id', '=', firstRun).execute();
    expect(results).toHaveLength(ITEMS);
    expect(results.filter((r) => r.errored)).toEqual([]);
    // The worker's replicas are in its own data directory, made from the store: the first checkout has none left.
    expect(readdirSync(join(workerCwd, 'worker-data', 'replicas')).filter((f) => f.endsWith('.sqlite')).length).toBeGreaterThan(0);
    expect(existsSync(join(checkoutA, '.sqlsweep', 'replicas'))).toBe(false);

    const addB = await cliIn(checkoutB, ['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist']);
    expect(addB).toMatchObject({ code: 0, stderr: '' });
    expect(addB.stdout).toMatch(new RegExp(`^already registered: minibench@${hash} `, 'm'));
    expect(addB.stdout).toMatch(/dataset store: 0 file\(s\) stored \(0 B\), \d+ already there/);

    const second = await cliIn(checkoutB, ['run', config, '--workers', '0', '--no-progress']);
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' });
    const secondRun = await stack.db.selectFrom('runs').select(['stage_jobs', 'dataset_version_id']).where('id', '=', runIdOf(second.stdout)).executeTakeFirstOrThrow();
    const firstRow = await stack.db.selectFrom('runs').select('dataset_version_id').where('id', '=', firstRun).executeTakeFirstOrThrow();
    expect(secondRun).toEqual({ stage_jobs: 0, dataset_version_id: firstRow.dataset_version_id });

    const listed = await cliIn(checkoutB, ['datasets']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`minibench +${hash} +minibench +\\d+ +\\d+ +[\\d.]+ (KiB|MiB)`));
    // Every stored file is named by the version: gc keeps them all.
    const gc = await cliIn(checkoutB, ['datasets', 'gc', '--min-age-minutes', '0']);
    expect(gc).toMatchObject({ code: 0, stderr: '' });
    expect(gc.stdout).toMatch(/^removed 0 unreferenced file\(s\), 0 B; the store keeps \d+ file\(s\)/);
  });

  it('a version whose files are not in the store errors its items naming the file and the command that stores it', async () => {
    const version = await stack.db.selectFrom('dataset_versions').select(['id', 'source_path']).executeTakeFirstOrThrow();
    // As a version registered before the store existed: no file list, its files collected.
    await stack.db.deleteFrom('dataset_version_files').where('version_id', '=', version.id).execute();
    expect((await cliIn(checkoutB, ['datasets', 'gc', '--min-age-minutes', '0'])).stdout).toMatch(/^removed [1-9]\d* unreferenced file\(s\)/);
    expect((await cliIn(checkoutB, ['datasets'])).stdout).toMatch(/not stored: add it again/);

    await Promise.all(workers.map((w) => w.stop()));
    workers = startWorkers(1, { ...env(), SQLSWEEP_DATA_DIR: 'fresh-data' }, undefined, workerCwd);
    const other = join(root, 'other-items.yaml');
    writeFileSync(other, readFileSync(config, 'utf8').replace(`items: { limit: ${ITEMS} }`, 'items: { offset: 30, limit: 1 }'));
    const run = await cliIn(checkoutB, ['run', other, '--workers', '0', '--no-progress']);
    const runId = runIdOf(run.stdout);
    const failures = await stack.db.selectFrom('stage_failures').select('error').where('run_id', '=', runId).execute();
    expect(failures.length).toBeGreaterThan(0);
    expect(failures[0].error).toMatch(new RegExp(`dataset version minibench@[0-9a-f]{12}: database \\w+ \\(dev_databases/\\w+/\\w+\\.sqlite, sha256 [0-9a-f]{12}\\) `
      + `is not in the dataset store; store it by registering the dataset again \\(sqlsweep datasets add minibench --format minibench --path ${version.source_path}\\), then run the sweep again`));
    expect(await stack.db.selectFrom('item_results').select('errored').where('run_id', '=', runId).execute()).toEqual([{ errored: true }]);

    // Registering again stores the files, and the sweep run again gives the item its result.
    const again = await cliIn(checkoutB, ['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist']);
    expect(again.stdout).toMatch(/dataset store: [1-9]\d* file\(s\) stored/);
    const rerun = await cliIn(checkoutB, ['run', other, '--workers', '0', '--no-progress']);
    expect(await stack.db.selectFrom('item_results').select('errored').where('run_id', '=', runIdOf(rerun.stdout)).execute()).toEqual([{ errored: false }]);
  });
});
