import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runIdOf } from './support/cli-output';
import { E2eStack } from './support/e2e-stack';

jest.setTimeout(300_000);

const SAMPLES = 'test/fixtures/benchmark-samples';
const SPIDER = join(SAMPLES, 'spider-sample');
const SYN = join(SAMPLES, 'spider-syn-sample');
const REALISTIC = join(SAMPLES, 'spider-realistic-sample');
const DK = join(SAMPLES, 'spider-dk-sample');

describe('a Spider-Syn dataset: registered with datasets add and swept', () => {
  // The simulator knows only Spider-Syn's rewritten questions: an item whose prompt carried Spider's own question
  // would get a 400 from it and end errored.
  const stack = new E2eStack();
  beforeAll(async () => {
    await stack.start({ datasets: [SYN] });
    stack.startWorkers(1);
  });
  afterAll(() => stack.stop());

  it('refuses a spider-syn folder given without its Spider folder, naming the missing tables.json', async () => {
    const r = await stack.cli(['datasets', 'add', 'spider-syn', '--format', 'spider-syn', '--path', SYN]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^sqlsweep: datasets add: \S+spider-syn-sample\/tables\.json: file is missing: .*--spider <dir>.*; nothing was registered\n$/);
  });

  it('registers the 297 Syn questions over the Spider databases (format spider), and a sweep asks the Syn questions', async () => {
    const added = await stack.cli(['datasets', 'add', 'spider-syn', '--format', 'spider-syn', '--path', SYN, '--spider', SPIDER]);
    expect({ code: added.code, stderr: added.stderr }).toEqual({ code: 0, stderr: '' });
    expect(added.stdout).toMatch(/^registered: spider-syn@[0-9a-f]{12} \(297 items, 5 databases\)/);

    const version = await stack.db.selectFrom('dataset_versions').select(['id', 'format']).executeTakeFirstOrThrow();
    expect(version.format).toBe('spider');
    const stored = await stack.db.selectFrom('dataset_items').select(['item_id', 'question', 'gold_flag']).where('version_id', '=', version.id)
      .where('split', '=', 'dev').orderBy('position').execute();
    const raw = JSON.parse(readFileSync(join(SYN, 'dev.json'), 'utf8')) as Array<{ SpiderSynQuestion: string }>;
    expect(stored.map((s) => s.question)).toEqual(raw.map((e) => e.SpiderSynQuestion));
    expect(stored.filter((s) => s.gold_flag !== null)).toEqual([]); // every gold query ran on the Spider databases

    const config = stack.writeFile('syn.yaml', [
      'name: syn-smoke', 'dataset: spider-syn', 'split: dev', 'items: { limit: 4 }', 'models: [sim-strong]',
      'pipelines:', '  - pipeline: zero-shot', '',
    ].join('\n'));
    const run = await stack.runSweep(config);
    expect(run.code).toBe(0);
    const results = await stack.db.selectFrom('item_results').select(['item_id', 'errored', 'simulated', 'correct'])
      .where('run_id', '=', runIdOf(run.stdout)).orderBy('item_id').execute();
    expect(results.map((r) => [r.item_id, r.errored, r.simulated])).toEqual(
      ['dev-0', 'dev-1', 'dev-2', 'dev-3'].map((id) => [id, false, true]),
    );
  });

  it('registers Spider-Realistic over the Spider databases and Spider-DK with its new database, under those names', async () => {
    const realistic = await stack.cli(['datasets', 'add', 'spider-realistic', '--format', 'spider-realistic', '--path', REALISTIC, '--spider', SPIDER]);
    expect({ code: realistic.code, stderr: realistic.stderr }).toEqual({ code: 0, stderr: '' });
    expect(realistic.stdout).toMatch(/^registered: spider-realistic@[0-9a-f]{12} \(137 items, 5 databases\)/);
    const dk = await stack.cli(['datasets', 'add', 'spider-dk', '--format', 'spider-dk', '--path', DK, '--spider', SPIDER]);
    expect({ code: dk.code, stderr: dk.stderr }).toEqual({ code: 0, stderr: '' });
    // 136 questions less the release's one gold query that does not compile, flagged and left out.
    expect(dk.stdout).toMatch(/^registered: spider-dk@[0-9a-f]{12} \(135 items, 6 databases\)/);
    const dkItems = await stack.db.selectFrom('dataset_items as i').innerJoin('dataset_versions as v', 'v.id', 'i.version_id')
      .innerJoin('datasets as d', 'd.id', 'v.dataset_id').select('i.item_id').where('d.name', '=', 'spider-dk').where('i.split', '=', 'dev').execute();
    expect(['dev-30', 'dev-31', 'dev-32'].filter((id) => dkItems.some((i) => i.item_id === id))).toEqual(['dev-30', 'dev-32']);
    const names = await stack.db.selectFrom('datasets').select('name').orderBy('name').execute();
    expect(names.map((n) => n.name)).toEqual(['spider-dk', 'spider-realistic', 'spider-syn']);
  });
});
