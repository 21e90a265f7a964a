import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { startE2eStack, type E2eStack } from './support/e2e-stack';
// nx-ignore-next-line
import { TempDirs } from '@sqlsweep/testing';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

jest.setTimeout(300_000);

const good = `name: bad-config-test
dataset: minibench
split: dev
items: { limit: 5 }
models: [sim-strong]
pipelines:
  - pipeline: zero-shot
    grid: { temperature: [0] }
`;

// File knobs may only name files in the corpus directory: this one holds a link to a file outside it.
const corpus = temp.make('bad-config-corpus-');
const outside = temp.make('bad-config-outside-');
writeFileSync(join(outside, 'secret.txt'), 'SECRET\n');
symlinkSync(join(outside, 'secret.txt'), join(corpus, 'link-out.txt'));
const r3With = (path: string) => good.replace('pipeline: zero-shot\n    grid: { temperature: [0] }', `pipeline: r3\n    grid: { ragCorpus: ["${path}"] }`);

const cases: Array<[string, string, RegExp]> = [
  ['bad YAML', 'name: [unclosed\ndataset: x', /: line \d+, column \d+: invalid YAML/],
  ['unknown pipeline', good.replace('zero-shot', 'mind-reading'), /: pipelines\[0\]\.pipeline: unknown pipeline "mind-reading" \(known: [^)]*zero-shot/],
  ['wrong type', good.replace('temperature: [0]', 'temperature: hot'), /: pipelines\[0\]\.grid\.temperature: expected array of numbers/],
  ['wrong item type', good.replace('limit: 5', 'limit: five'), /: items\.limit: /],
  ['missing dataset', good.replace('dataset: minibench', 'dataset: nowhere'), /: dataset: no registered dataset "nowhere"/],
  ['unknown model', good.replace('[sim-strong]', '[gpt-17]'), /: models: [^]*gpt-17: unknown model "gpt-17"/],
  ['missing file', '', /: file not found/],
  ['corpus at an absolute path', r3With('/etc/passwd'), /: pipelines\[0\]\.grid\.ragCorpus: cannot read the RAG corpus at \/etc\/passwd: "\/etc\/passwd" is absolute/],
  ['corpus path with ..', r3With('../x'), /: pipelines\[0\]\.grid\.ragCorpus: cannot read the RAG corpus at .*: "\.\.\/x" holds "\.\."/],
  ['corpus link out of the corpus directory', r3With('link-out.txt'), /: pipelines\[0\]\.grid\.ragCorpus: cannot read the RAG corpus at .*: "link-out\.txt" is a link to .*secret\.txt, outside the corpus directory/],
];

describe('malformed sweep configs', () => {
  let e2e: E2eStack;

  // The simulated models need a simulator URL to pass the model check; no config here gets far enough to call it.
  beforeAll(async () => { e2e = await startE2eStack({ simulator: false, env: { SQLSWEEP_LLM_SIM_URL: 'http://127.0.0.1:9', SQLSWEEP_CORPUS_DIR: corpus } }); });
  afterAll(() => e2e?.stop());

  it.each(cases)('%s: refused with file, path and reason; nothing written or enqueued', async (name, text, pattern) => {
    const fileName = `${name.replace(/ /g, '-')}.yaml`;
    const file = text ? e2e.writeFile(fileName, text) : join(e2e.dataDir, fileName);
    const r = await e2e.cli(['run', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(pattern);
    expect(r.stdout).not.toMatch(/created/);

    for (const table of ['sweeps', 'runs', 'variants', 'run_stages', 'stage_results', 'item_results'] as const) {
      const row = await e2e.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect([table, Number(row.n)]).toEqual([table, 0]);
    }
    const redis = new IORedis(process.env.REDIS_URL!);
    try {
      expect(await redis.keys(`${e2e.prefix}:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
