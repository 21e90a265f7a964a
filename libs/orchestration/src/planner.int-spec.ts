import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSweepConfig, SweepConfigError } from '@sqlsweep/contracts';
// nx-ignore-next-line
import { minibenchDir, useTestCore, TempDirs } from '@sqlsweep/testing';
import { OrchestratorCore } from './core';
import type { SweepPlan } from './planner';
import { registerDataset } from './register-dataset';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

/** The corpus directory the planner is given: file knobs name files relative to it. */
const corpusDir = temp.make('sqlsweep-planner-corpus-');

/** Plans against real Postgres with minibench registered; nothing is stored, so every stage is needed. */
describe('Planner (real Postgres)', () => {
  const testCore = useTestCore(OrchestratorCore, { corpusDir });
  beforeAll(async () => {
    await registerDataset(testCore.core.datasets, { name: 'minibench', format: 'minibench', path: minibenchDir, dataDir: testCore.dataDir });
  });

  const plan = (pipelines: string[], source = 'planner-test.yaml') => testCore.core.planner.plan(parseSweepConfig([
    'name: planner-test', 'dataset: minibench', 'split: dev', 'items: { limit: 3 }', 'models: [sim-strong]', 'pipelines:',
    ...pipelines.map((p) => `  - ${p}`), '',
  ].join('\n'), source), source);

  /** `label stage item` -> key, for every stage of every variant. */
  const keysOf = (p: SweepPlan) => {
    const labels = new Map(p.variants.map((v) => [v.id, v.label]));
    return new Map(p.stages.map((s) => [`${labels.get(s.variantId)} ${s.stage} ${s.itemId}`, s.stageKey]));
  };
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  describe('a file knob (R3 RAG corpus)', () => {
    it('keys r3.rag and everything downstream of it on the corpus content, and nothing else', async () => {
      const corpus = 'corpus.txt';
      const entries = [
        `{ pipeline: r3, label: full, grid: { ragCorpus: [${corpus}] } }`,
        `{ pipeline: r3, label: no-rag, grid: { rag: [false], ragCorpus: [${corpus}] } }`,
        '{ pipeline: zero-shot }',
      ];
      writeFileSync(join(corpusDir, corpus), 'Airports have an elevation in feet.\n');
      const before = await plan(entries);
      writeFileSync(join(corpusDir, corpus), 'Airports have an elevation in metres.\n');
      const after = await plan(entries);

      expect(after.variants.map((v) => v.key)).toEqual(before.variants.map((v) => v.key));
      const [b, a] = [keysOf(before), keysOf(after)];
      expect([...a.keys()]).toEqual([...b.keys()]);
      const changed = [...b.keys()].filter((k) => a.get(k) !== b.get(k));
      const items = [...new Set(after.stages.map((s) => s.itemId))];
      expect(changed.sort()).toEqual(['r3.rag', 'r3.link', 'r3.decompose', 'r3.generate', 'evaluate'].flatMap((stage) => items.map((i) => `full sim-strong ${stage} ${i}`)).sort());
      expect(after.stages.find((s) => s.stage === 'r3.rag')!.params).toMatchObject({ ragCorpus: corpus, ragCorpusSha256: sha256('Airports have an elevation in metres.\n') });
    });

    it('refuses a missing corpus before anything is written, naming the file and the knob; a variant without RAG needs none', async () => {
      const missing = 'minibench/rag/no-such-corpus.txt';
      const runsBefore = await testCore.database.db.selectFrom('runs').select('id').execute();
      const attempt = plan(['{ pipeline: zero-shot }', `{ pipeline: r3, grid: { ragCorpus: [${missing}] } }`], 'configs/sweeps/x.yaml');
      await expect(attempt).rejects.toThrow(SweepConfigError);
      await expect(attempt).rejects.toThrow(
        `configs/sweeps/x.yaml: pipelines[1].grid.ragCorpus: cannot read the RAG corpus at ${join(corpusDir, missing)}: no such file in the corpus directory ${corpusDir} (SQLSWEEP_CORPUS_DIR)`,
      );
      mkdirSync(join(corpusDir, 'a-folder'), { recursive: true });
      await expect(plan(['{ pipeline: r3, grid: { ragCorpus: [a-folder] } }'])).rejects.toThrow(`pipelines[0].grid.ragCorpus: cannot read the RAG corpus at ${join(corpusDir, 'a-folder')}: not a regular file`);
      expect(await testCore.database.db.selectFrom('runs').select('id').execute()).toEqual(runsBefore);

      const noRag = await plan([`{ pipeline: r3, grid: { rag: [false], ragCorpus: [${missing}] } }`]);
      expect(noRag.stages.some((s) => s.stage === 'r3.rag')).toBe(false);
    });

    it('refuses a file outside the corpus directory (absolute, "..", a link out) before anything is written, as the CLI and the API do', async () => {
      const outside = temp.make('sqlsweep-planner-outside-');
      writeFileSync(join(outside, 'secret.txt'), 'SECRET\n');
      symlinkSync(join(outside, 'secret.txt'), join(corpusDir, 'link-out.txt'));
      const runsBefore = await testCore.database.db.selectFrom('runs').select('id').execute();
      for (const [path, reason] of [['/etc/passwd', '"/etc/passwd" is absolute'], ['../x', '"../x" holds ".."'], ['link-out.txt', `"link-out.txt" is a link to ${join(outside, 'secret.txt')}, outside the corpus directory ${corpusDir}`]]) {
        const error = await plan([`{ pipeline: r3, grid: { ragCorpus: ["${path}"] } }`], 'configs/sweeps/x.yaml').then(() => null, (e: unknown) => e);
        expect(error).toBeInstanceOf(SweepConfigError);
        expect((error as Error).message).toMatch(/^configs\/sweeps\/x\.yaml: pipelines\[0\]\.grid\.ragCorpus: cannot read the RAG corpus at /);
        expect((error as Error).message).toContain(reason);
      }
      expect(await testCore.database.db.selectFrom('runs').select('id').execute()).toEqual(runsBefore);
    });
  });

  describe('the cost estimate', () => {
    const selectShots = (p: SweepPlan) => p.byStage.find((s) => s.stage === 'ucs-sql.select-shots')!;

    it('counts no call and no tokens for a shot choice that fixed or DAIL shots skip, one per item for SS-QE', async () => {
      const fixed = await plan(['{ pipeline: ucs-sql, grid: { shots: [2], shotSelection: [fixed] } }']);
      expect(selectShots(fixed)).toMatchObject({ needed: 3, llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });
      const dail = await plan(['{ pipeline: ucs-sql, grid: { shots: [2], shotSelection: [dail] } }']);
      expect(selectShots(dail)).toMatchObject({ needed: 3, llmCalls: 0, inputTokens: 0 });
      const ssQe = await plan(['{ pipeline: ucs-sql, grid: { shots: [2], shotSelection: [ss-qe] } }']);
      expect(selectShots(ssQe)).toMatchObject({ needed: 3, llmCalls: 3 });
      expect(selectShots(ssQe).inputTokens).toBeGreaterThan(0);

      // The shot choice's job still runs and is counted; the plan's LLM calls are the estimate's.
      const llmJobs = (p: SweepPlan) => p.byStage.filter((s) => s.role === 'llm').reduce((n, s) => n + s.needed, 0);
      expect(fixed.llmCalls).toBe(fixed.estimate.llmCalls);
      expect(fixed.llmCalls).toBe(llmJobs(fixed) - 3);
      expect(ssQe.llmCalls).toBe(llmJobs(ssQe));
    });

    it('skips the schema selector\'s call on an item whose schema is at or below the threshold', async () => {
      const preselect = async (threshold: number) => {
        // The average-columns trigger (MAC-SQL's second rule) held out of the way: this checks the column count's.
        const p = await plan([`{ pipeline: ucs-sql, grid: { shots: [0], preselectAboveColumns: [${threshold}], preselectAboveAverageColumns: [1000] } }`]);
        return { p, stage: p.byStage.find((s) => s.stage === 'ucs-sql.preselect')! };
      };
      const { p } = await preselect(30);
      const dbIds = [...new Set(p.items.map((i) => i.dbId))];
      expect(dbIds).toHaveLength(1); // the first three dev items share a database
      const schema = (await testCore.core.datasets.getDatabase(p.version.id, dbIds[0]))!.schema as { tables: Array<{ columns: unknown[] }> };
      const columns = schema.tables.reduce((n, table) => n + table.columns.length, 0);
      expect((await preselect(columns)).stage).toMatchObject({ needed: 3, llmCalls: 0, inputTokens: 0 });
      expect((await preselect(columns - 1)).stage).toMatchObject({ needed: 3, llmCalls: 3 });
    });
  });
});
