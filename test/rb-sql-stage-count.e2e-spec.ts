import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testQueuePrefix, type TestDatabase } from '@sqlsweep/testing';
import { runCli, startSimulator, startWorkers, type Proc } from './support/e2e';

jest.setTimeout(600_000);

const THETAS = [11, 13, 15];
const MUS = [3, 5, 7];
const SHOTS = [0, 1, 3, 5];
const ITEMS = 5;
/**
 * Correction rounds per variant (0 turns error correction off: 485 jobs instead of 845, for a loaded machine). The
 * sharing of correction rounds between chain lengths is checked on stage keys in rb-sql.spec.ts.
 */
const ROUNDS = 1;

/**
 * The distinct stage jobs the sweep implies, derived by hand from what each RB-SQL stage reads (not from the
 * planner): every stage is identified by the knobs it reads plus the identities of its inputs, so two variants share
 * a job exactly when those agree. Defaults: schema filter, skeleton organization, skeleton selection and error
 * correction on only when ROUNDS > 0.
 */
function expectedJobsPerItem(): { total: number; llm: number } {
  const jobs = new Set<string>();
  let llm = 0;
  const add = (id: string, isLlm = false) => { if (!jobs.has(id)) { jobs.add(id); if (isLlm) llm++; } };
  for (const theta of THETAS) for (const mu of MUS) for (const k of SHOTS) {
    add('gold');
    const tables = `tables(theta=${theta})`; // also reads muPrime and maxTableTokens, fixed here
    add(tables);
    const columns = `columns(mu=${mu}, ${tables})`;
    add(columns);
    let generateInputs = columns;
    if (k > 0) {
      const shots = `shots(k=${k})`; // reads shotSelection (fixed: skeleton)
      add(shots);
      generateInputs += `, ${shots}`;
      for (let i = 1; i <= k; i++) {
        const decompose = `decompose-${i}(${shots})`; // reads the LLM knobs, fixed here
        add(decompose, true);
        generateInputs += `, ${decompose}`;
      }
    }
    let last = `generate(${generateInputs})`;
    add(last, true);
    for (let r = 1; r <= ROUNDS; r++) {
      const check = `check-${r}(${last})`;
      add(check);
      last = `correct-${r}(${check}, ${columns})`; // reads fullSchemaAfter, fixed here
      add(last, true);
    }
    add(`evaluate(gold, ${last})`);
  }
  return { total: jobs.size, llm };
}

describe('RB-SQL sweep θ × μ × shots: distinct stage jobs, reuse, and the dry-run prediction', () => {
  let t: TestDatabase;
  let sim: Proc & { url: string };
  let workers: Proc[] = [];
  let env: NodeJS.ProcessEnv;
  let config: string;
  const prefix = testQueuePrefix();

  beforeAll(async () => {
    t = await createTestDatabase();
    sim = await startSimulator();
    const dir = mkdtempSync(join(tmpdir(), 'sqlsweep-rb-sql-count-'));
    env = { DATABASE_URL: t.url, SQLSWEEP_QUEUE_PREFIX: prefix, SQLSWEEP_LLM_SIM_URL: sim.url, SQLSWEEP_DATA_DIR: dir };
    config = join(dir, 'rb-sql-grid.yaml');
    writeFileSync(config, [
      'name: rb-sql-stage-count',
      'dataset: minibench',
      'split: dev',
      `items: { limit: ${ITEMS} }`,
      'models: [sim-strong]',
      'pipelines:',
      '  - pipeline: rb-sql',
      `    grid: { theta: [${THETAS}], mu: [${MUS}], shots: [${SHOTS}], errorCorrection: [${ROUNDS > 0}], maxCorrections: [${Math.max(ROUNDS, 1)}] }`,
      'seed: 3',
      '',
    ].join('\n'));
    const added = await runCli(['datasets', 'add', 'minibench', '--format', 'minibench', '--path', 'data/minibench/dist'], env);
    expect(added.code).toBe(0);
    workers = startWorkers(2, env);
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await sim?.stop();
    await t?.drop();
  });

  /** `total  <jobs needed>  <reused>  <LLM calls> ...` from the dry-run's stage table. */
  function dryRunTotals(stdout: string): { needed: number; reused: number; llmCalls: number } {
    const m = /^total\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(stdout);
    if (!m) throw new Error(`no total line in the dry-run output:\n${stdout}`);
    return { needed: Number(m[1]), reused: Number(m[2]), llmCalls: Number(m[3]) };
  }

  const storedResults = async () => Number((await t.db.selectFrom('stage_results').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('issues exactly the jobs the stage keys imply, then none; --dry-run predicts both', async () => {
    const perItem = expectedJobsPerItem();
    // 1 gold + 3 TR + 9 CR + 3 SR + (1+3+5) decompositions + 36 generations + 36 checks + 36 corrections + 36 evaluations
    expect(perItem.total).toBe(1 + 3 + 9 + 3 + 9 + 36 * (2 + 2 * ROUNDS));
    const expected = perItem.total * ITEMS;

    const dry = await runCli(['run', config, '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/5 items x 36 variants/);
    const predicted = dryRunTotals(dry.stdout);
    expect(predicted.needed).toBe(expected);
    expect(predicted.reused).toBe(0);
    // Every LLM stage job is predicted as a call (correction rounds may later be skipped).
    expect(predicted.llmCalls).toBe(perItem.llm * ITEMS);

    const before = await storedResults();
    const first = await runCli(['run', config, '--workers', '0', '--no-progress'], env, 560_000);
    expect(first.code).toBe(0);
    const firstId = /run ([0-9a-f-]{36}) created/.exec(first.stdout)![1]!;
    const firstRun = await t.db.selectFrom('runs').selectAll().where('id', '=', firstId).executeTakeFirstOrThrow();
    expect(firstRun).toMatchObject({ status: 'done', stage_jobs: expected, reused_stages: 0 });
    expect(await storedResults()).toBe(before + expected);
    const results = await t.db.selectFrom('item_results').select(['item_id', 'errored']).where('run_id', '=', firstId).execute();
    expect(results).toHaveLength(36 * ITEMS);
    expect(results.filter((r) => r.errored)).toEqual([]);

    const dryAgain = dryRunTotals((await runCli(['run', config, '--dry-run'], env)).stdout);
    expect(dryAgain).toMatchObject({ needed: 0, reused: expected, llmCalls: 0 });

    const second = await runCli(['run', config, '--workers', '0', '--no-progress'], env);
    expect(second.code).toBe(0);
    const secondId = /run ([0-9a-f-]{36}) created/.exec(second.stdout)![1]!;
    const secondRun = await t.db.selectFrom('runs').selectAll().where('id', '=', secondId).executeTakeFirstOrThrow();
    expect(secondRun).toMatchObject({ status: 'done', stage_jobs: 0, reused_stages: expected });
    expect(await storedResults()).toBe(before + expected);
  });
});
