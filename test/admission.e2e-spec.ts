import { spawn } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HUGE_GRID_SWEEP, repoRoot } from '@sqlsweep/testing';
import { startE2eStack, type E2eStack } from './support/e2e-stack';

jest.setTimeout(300_000);

const aliasBomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghij'[i]}`).join(', ')}]`)].join('\n');

interface Measured { code: number; stderr: string; stdout: string; wallMs: number; maxRssMb: number }

describe('admission control through the CLI', () => {
  let e2e: E2eStack;

  beforeAll(async () => {
    e2e = await startE2eStack({ simulator: false, env: { SQLSWEEP_LLM_SIM_URL: 'http://127.0.0.1:9' } });
    // minibench with an empty train split.
    const noTrain = join(e2e.dataDir, 'no-train');
    cpSync(join(repoRoot, 'data/minibench/dist'), noTrain, { recursive: true });
    writeFileSync(join(noTrain, 'train.json'), '[]\n');
    writeFileSync(join(noTrain, 'train_gold.sql'), '');
    const added = await e2e.cli(['datasets', 'add', 'no-train', '--format', 'minibench', '--path', noTrain]);
    expect(added.code).toBe(0);
  });
  afterAll(() => e2e?.stop());

  /**
   * `sqlsweep <args>` under /usr/bin/time: wall time and peak RSS of the whole process. The heap is capped at 1 GB,
   * so a CLI that expands what it should refuse dies instead of taking the machine's memory.
   */
  const measured = (args: string[]): Promise<Measured> => new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, join(repoRoot, 'bin', 'sqlsweep'), ...args], {
      cwd: repoRoot, env: { ...process.env, ...e2e.env, NODE_OPTIONS: '--max-old-space-size=1024' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const rss = /maxrss_kb=(\d+)/.exec(stderr);
      // /usr/bin/time appends its own lines to the CLI's stderr.
      const own = stderr.replace(/^(Command exited with non-zero status \d+|maxrss_kb=\d+)\n?/gm, '');
      resolve({ code: code ?? 1, stdout, stderr: own, wallMs: Date.now() - started, maxRssMb: rss ? Number(rss[1]) / 1024 : Infinity });
    });
  });

  const nothingWritten = async () => {
    for (const table of ['sweeps', 'runs', 'variants', 'run_stages'] as const) {
      const row = await e2e.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect([table, Number(row.n)]).toEqual([table, 0]);
    }
  };

  it('refuses a 10^7-variant grid (--dry-run and not) in under 2 s more than a trivial refusal, without growing', async () => {
    const baselineFile = e2e.writeFile('nowhere.yaml', 'name: x\ndataset: nowhere\nmodels: [sim-strong]\npipelines:\n  - pipeline: zero-shot\n');
    const baseline = await measured(['run', baselineFile, '--dry-run']);
    expect(baseline.stderr).toMatch(/no registered dataset "nowhere"/);
    const file = e2e.writeFile('huge.yaml', HUGE_GRID_SWEEP);
    for (const extra of [['--dry-run'], []]) {
      const r = await measured(['run', file, ...extra]);
      expect(r.stderr).toContain(`${file}: pipelines[0].grid: 10 maxTokens x 10 mu x 10 muPrime x 10 temperature x 10 theta x 2 models x 50 repeats = 10,000,000 variants exceeds the budget of 10,000 variants (SQLSWEEP_MAX_VARIANTS)`);
      expect(r.code).toBe(2);
      // Starting the CLI (compiling its TypeScript) alone takes seconds and ~200 MB on a busy 2-core machine: what
      // the refusal itself may add is measured against a config refused at the same point for a missing dataset.
      expect(r.wallMs - baseline.wallMs).toBeLessThan(2_000);
      expect(r.maxRssMb - baseline.maxRssMb).toBeLessThan(50);
    }
    await nothingWritten();
  });

  it('refuses a config over 1 MiB and an alias bomb, naming the file', async () => {
    const text = `${HUGE_GRID_SWEEP}description: "${'x'.repeat(1024 * 1024)}"\n`;
    const big = e2e.writeFile('big.yaml', text);
    const r = await measured(['run', big, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`sqlsweep: ${big}: ${Buffer.byteLength(text).toLocaleString('en-US')} bytes is more than a sweep config may have (1 MiB, 1,048,576 bytes)\n`);

    const bomb = e2e.writeFile('bomb.yaml', aliasBomb);
    const b = await measured(['run', bomb, '--dry-run']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/^sqlsweep: \S+bomb\.yaml: invalid YAML: Excessive alias count/);
    expect(b.stderr).not.toMatch(/\n\s+at /); // no stack trace
    await nothingWritten();
  });

  it('refuses shots on a dataset with an empty train split at plan time and in --dry-run', async () => {
    const file = e2e.writeFile('shots.yaml', 'name: shots\ndataset: no-train\nitems: { limit: 5 }\nmodels: [sim-strong]\npipelines:\n  - pipeline: zero-shot\n  - pipeline: rb-sql\n    grid: { shots: [0, 3] }\n');
    for (const extra of [['--dry-run'], []]) {
      const r = await measured(['run', file, ...extra]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/: pipelines\[1\]\.grid\.shots: rb-sql with shots=3 needs at least 3 items in the train split, but dataset "no-train" \(version [0-9a-f]{12}\) has 0/);
    }
    await nothingWritten();
  });
});
