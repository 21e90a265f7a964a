import { dryRunTotals, runIdOf } from './support/cli-output';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
import { runRow, storedStageResults } from './support/stored-results';

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
  let e2e: E2eStack;
  let config: string;

  beforeAll(async () => {
    e2e = await startE2eStack({ workers: 2 });
    config = e2e.writeFile('rb-sql-grid.yaml', [
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
  });
  afterAll(() => e2e?.stop());

  const storedResults = () => storedStageResults(e2e.db);

  it('issues exactly the jobs the stage keys imply, then none; --dry-run predicts both', async () => {
    const perItem = expectedJobsPerItem();
    // 1 gold + 3 TR + 9 CR + 3 SR + (1+3+5) decompositions + 36 generations + 36 checks + 36 corrections + 36 evaluations
    expect(perItem.total).toBe(1 + 3 + 9 + 3 + 9 + 36 * (2 + 2 * ROUNDS));
    const expected = perItem.total * ITEMS;

    const dry = await e2e.cli(['run', config, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/5 items x 36 variants/);
    const predicted = dryRunTotals(dry.stdout);
    expect(predicted.needed).toBe(expected);
    expect(predicted.reused).toBe(0);
    // Every LLM stage job is predicted as a call (correction rounds may later be skipped).
    expect(predicted.llmCalls).toBe(perItem.llm * ITEMS);

    const before = await storedResults();
    const first = await e2e.runSweep(config, 560_000);
    expect(first.code).toBe(0);
    const firstId = runIdOf(first.stdout);
    const firstRun = await runRow(e2e.db, firstId);
    expect(firstRun).toMatchObject({ status: 'done', stage_jobs: expected, reused_stages: 0 });
    expect(await storedResults()).toBe(before + expected);
    const results = await e2e.db.selectFrom('item_results').select(['item_id', 'errored']).where('run_id', '=', firstId).execute();
    expect(results).toHaveLength(36 * ITEMS);
    expect(results.filter((r) => r.errored)).toEqual([]);

    const dryAgain = dryRunTotals((await e2e.cli(['run', config, '--dry-run'])).stdout);
    expect(dryAgain).toMatchObject({ needed: 0, reused: expected, llmCalls: 0 });

    const second = await e2e.runSweep(config);
    expect(second.code).toBe(0);
    const secondRun = await runRow(e2e.db, runIdOf(second.stdout));
    expect(secondRun).toMatchObject({ status: 'done', stage_jobs: 0, reused_stages: expected });
    expect(await storedResults()).toBe(before + expected);
  });
});
