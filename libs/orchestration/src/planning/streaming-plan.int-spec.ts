import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseSweepConfig } from '@sqlsweep/contracts';
import { queryRows } from '@sqlsweep/db';
// nx-ignore-next-line
import { minibenchDir, useTestCore } from '@sqlsweep/testing';
import { OrchestratorCore } from '../core';
import type { PlannedSweep } from '../planner';
import { registerDataset } from '../register-dataset';

/**
 * The streaming planner against real Postgres: a plan written in many small chunks is the plan written in one, and a
 * plan abandoned midway (a throw, or its process killed) leaves nothing behind.
 */
describe('streaming planner (real Postgres)', () => {
  const testCore = useTestCore(OrchestratorCore);
  const q = () => queryRows<Record<string, unknown>>(testCore.database.db);
  const sweep = (name: string) => parseSweepConfig([
    `name: ${name}`, 'dataset: minibench', 'split: dev', 'items: { limit: 3 }', 'models: [sim-strong, sim-weak]', 'pipelines:',
    '  - { pipeline: rb-sql, grid: { temperature: [0.1, 0.7] } }',
    '  - { pipeline: zero-shot }',
    '  - { pipeline: dr-chain, grid: { k1: [2], k2: [2] } }', '',
  ].join('\n'), `${name}.yaml`);
  /** What a plan says about itself, less the variants' random ids. */
  const summary = (p: PlannedSweep) => ({ stageJobs: p.stageJobs, reused: p.reused, llmCalls: p.llmCalls, estimate: p.estimate, byStage: p.byStage });
  /** A stored plan's rows, each named by its variant's label instead of the variant's random id, sorted. */
  const storedRows = async (runId: string) => (await q()`
    SELECT v.label, rs.item_id, rs.stage, rs.stage_key, rs.role, rs.params::text, rs.inputs::text, rs.input_keys, rs.last_input_key, rs.is_final
    FROM run_stages rs JOIN variants v ON v.id = rs.variant_id WHERE rs.run_id = ${runId}
    ORDER BY v.label, rs.item_id, rs.stage`);
  const counts = async () => (await q()`
    SELECT (SELECT count(*) FROM runs)::int AS runs, (SELECT count(*) FROM sweeps)::int AS sweeps,
           (SELECT count(*) FROM variants)::int AS variants, (SELECT count(*) FROM run_stages)::int AS stages`)[0];

  beforeAll(async () => {
    await registerDataset(testCore.core.datasets, { name: 'minibench', format: 'minibench', path: minibenchDir, dataDir: testCore.dataDir });
    // Some of the sweep's stages already have results, so that reuse is counted too.
    const earlier = await testCore.core.planner.plan(sweep('earlier'), 'earlier.yaml');
    const some = new Map(earlier.stages.filter((_, i) => i % 3 === 0).map((s) => [s.stageKey, s.stage]));
    await testCore.core.stages.saveResults([...some].map(([stageKey, stage]) => ({ stageKey, stage, output: { stored: true }, simulated: true, machine: 'test' })));
  });

  it('stores, counts and estimates the same plan in chunks of 7 stages as in one chunk, dry run or not', async () => {
    const planner = testCore.core.planner;
    const chunked = await planner.planRun(sweep('chunked'), 'chunked.yaml', { chunkSize: 7 });
    const whole = await planner.planRun(sweep('whole'), 'whole.yaml', { chunkSize: 1_000_000 });
    const dry = await planner.planRun(sweep('dry'), 'dry.yaml', { chunkSize: 5, dryRun: true });
    const inMemory = await planner.plan(sweep('in-memory'), 'in-memory.yaml');

    expect(dry.runId).toBeUndefined();
    expect(summary(chunked.plan)).toEqual(summary(whole.plan));
    expect(summary(dry.plan)).toEqual(summary(whole.plan));
    expect(summary(inMemory)).toEqual(summary(whole.plan));
    expect(whole.plan.reused).toBeGreaterThan(0);
    expect(whole.plan.estimate.llmCalls).toBeGreaterThan(0);

    // The counts, from every stage held at once: distinct keys, less those stored, per kind in the order the kinds
    // first come when the plan is listed variant by variant.
    const keys = new Map(inMemory.stages.map((s) => [s.stageKey, s.stage]));
    const stored = await testCore.core.stages.existingKeys([...keys.keys()]);
    expect(whole.plan.stageJobs).toBe(keys.size - stored.size);
    expect(whole.plan.reused).toBe(stored.size);
    const variantByVariant = inMemory.variants.flatMap((v) => inMemory.stages.filter((s) => s.variantId === v.id));
    expect(whole.plan.byStage.map((k) => k.stage)).toEqual([...new Set(variantByVariant.map((s) => s.stage))]);
    for (const kind of whole.plan.byStage) {
      const ofKind = [...keys].filter(([, stage]) => stage === kind.stage).map(([key]) => key);
      expect([kind.stage, kind.needed, kind.reused]).toEqual([kind.stage, ofKind.filter((k) => !stored.has(k)).length, ofKind.filter((k) => stored.has(k)).length]);
    }

    // The stored rows: the same in both runs, and the stages the in-memory plan lists.
    const [a, b] = [await storedRows(chunked.runId!), await storedRows(whole.runId!)];
    expect(a.length).toBe(inMemory.stages.length);
    expect(a).toEqual(b);
    const labels = new Map(inMemory.variants.map((v) => [v.id, v.label]));
    const expected = inMemory.stages.map((s) => `${labels.get(s.variantId)} ${s.itemId} ${s.stage} ${s.stageKey} ${Object.values(s.inputs).join(',')}`).sort();
    expect(a.map((r) => `${r.label} ${r.item_id} ${r.stage} ${r.stage_key} ${(r.input_keys as string[]).join(',')}`).sort()).toEqual(expected);

    const runs = await q()`SELECT stage_jobs, reused_stages, estimated_llm_calls, estimated_input_tokens, status FROM runs WHERE id IN (${chunked.runId}, ${whole.runId})`;
    expect(runs).toEqual([0, 1].map(() => ({
      stage_jobs: whole.plan.stageJobs, reused_stages: whole.plan.reused, estimated_llm_calls: whole.plan.estimate.llmCalls,
      estimated_input_tokens: whole.plan.estimate.inputTokens, status: 'running',
    })));
  });

  it('keeps nothing of a plan abandoned after some chunks were written', async () => {
    const before = await counts();
    const running = await testCore.core.runs.runningRuns();
    let chunks = 0;
    const attempt = testCore.core.planner.planRun(sweep('abandoned'), 'abandoned.yaml', {
      chunkSize: 10,
      onChunk: async ({ rows }) => {
        if (++chunks < 4) return;
        // Midway, what the plan has written is not to be seen outside its transaction.
        expect(rows).toBeGreaterThan(30);
        expect(await counts()).toEqual(before);
        throw new Error('planning interrupted');
      },
    });
    await expect(attempt).rejects.toThrow('planning interrupted');
    expect(await counts()).toEqual(before);
    expect(await testCore.core.runs.runningRuns()).toEqual(running);
  });

  it('keeps nothing of a plan whose process is killed midway', async () => {
    const before = await counts();
    const running = await testCore.core.runs.runningRuns();
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'plan-until-killed.child.ts'), JSON.stringify(testCore.settings)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.stdin.end(`${['name: killed', 'dataset: minibench', 'split: dev', 'items: { limit: 3 }', 'models: [sim-strong]', 'pipelines:', '  - { pipeline: rb-sql }'].join('\n')}\n`);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => { if (/chunk 3\b/.test(d.toString())) resolve(); });
      child.once('exit', (code) => reject(new Error(`the planning process exited (${code}) before its third chunk\n${stderr}`)));
    });
    expect(await counts()).toEqual(before);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // Postgres rolls the transaction back once it sees the connection gone; until then its rows are invisible anyway.
    await waitFor(async () => (await q()`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND xact_start IS NOT NULL AND pid <> pg_backend_pid() AND query LIKE '%run_stages%'`)[0].n === 0);
    expect(await counts()).toEqual(before);
    expect(await testCore.core.runs.runningRuns()).toEqual(running);
  });
});

async function waitFor(done: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}
