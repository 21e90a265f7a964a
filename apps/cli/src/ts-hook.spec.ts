import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** bin/ts-hook.js, the TypeScript hook `bin/sqlsweep` starts the CLI with, run in fresh Node processes as the CLI runs it. */
const repoRoot = resolve(__dirname, '../../..');
const hook = join(repoRoot, 'bin', 'ts-hook.js');

interface Loaded {
  stats: { cached: number; compiled: number; cacheDir: string | null };
  /** Whether @swc/core was loaded (it need not be when every module came from the cache). */
  swcLoaded: boolean;
  result: unknown;
  stack: string;
}

/** Registers the hook with `cacheDir`, loads `entry` (which exports `run()`), and reports. */
function load(entry: string, cacheDir: string): Loaded {
  const script = `
    const h = require(${JSON.stringify(hook)}).register({ cacheDir: ${JSON.stringify(cacheDir)} });
    require('reflect-metadata');
    const m = require(${JSON.stringify(entry)});
    let stack = '';
    try { m.fail(); } catch (e) { stack = e.stack; }
    const swcLoaded = Object.keys(require.cache).some((f) => f.includes('/@swc/core/'));
    console.log(JSON.stringify({ stats: h.stats(), swcLoaded, result: m.run(), stack }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 })) as Loaded;
}

describe('bin/ts-hook.js', () => {
  let work: string;
  let entry: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'ts-hook-'));
    mkdirSync(join(work, 'src'));
    entry = join(work, 'src', 'main.ts');
    // Legacy decorators with metadata (what libs with decorated classes rely on), an import without extension, type-only syntax.
    writeFileSync(entry, [
      "import { label, throwHere } from './helper';",
      'const seen: string[] = [];',
      'function tag(target: object, key: string): void { seen.push(`${key}:${(Reflect as any).getMetadata("design:type", target, key).name}`); }',
      'class Thing { @tag name!: string; @tag count!: number; constructor(private readonly base: number) {} }',
      'export function run(): { seen: string[]; label: string } { new Thing(1); return { seen, label: label<number>(42) }; }',
      'export function fail(): void { throwHere(); }',
      '',
    ].join('\n'));
    writeFileSync(join(work, 'src', 'helper.ts'), [
      'export function label<T>(v: T): string { return `value ${String(v)}`; }',
      'interface Unused { x: number }',
      'export function throwHere(): never {',
      "  throw new Error('from helper'); // line 4",
      '}',
      '',
    ].join('\n'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('compiles on a miss, reads the cache on a hit without loading @swc/core, and compiles again what changed', () => {
    const cacheDir = join(work, 'cache');
    const cold = load(entry, cacheDir);
    expect(cold.stats).toEqual({ cached: 0, compiled: 2, cacheDir });
    expect(cold.result).toEqual({ seen: ['name:String', 'count:Number'], label: 'value 42' });
    expect(readdirSync(cacheDir).filter((f) => f.endsWith('.js'))).toHaveLength(2);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);

    const warm = load(entry, cacheDir);
    expect(warm.stats).toEqual({ cached: 2, compiled: 0, cacheDir });
    expect(warm.swcLoaded).toBe(false);
    expect(warm.result).toEqual(cold.result);

    writeFileSync(join(work, 'src', 'helper.ts'), 'export function label<T>(v: T): string { return `changed ${String(v)}`; }\nexport function throwHere(): never { throw new Error("x"); }\n');
    const edited = load(entry, cacheDir);
    expect(edited.stats).toEqual({ cached: 1, compiled: 1, cacheDir });
    expect(edited.result).toEqual({ seen: ['name:String', 'count:Number'], label: 'changed 42' });
  });

  it('keeps stack traces on the TypeScript lines, compiled or cached', () => {
    const cacheDir = join(work, 'cache');
    for (const run of [load(entry, cacheDir), load(entry, cacheDir)]) expect(run.stack).toContain(`${join(work, 'src', 'helper.ts')}:4:`);
  });

  it('compiles in memory, writing nothing, when the cache folder can be written by others', () => {
    const cacheDir = join(work, 'shared');
    mkdirSync(cacheDir);
    chmodSync(cacheDir, 0o777);
    for (let i = 0; i < 2; i++) expect(load(entry, cacheDir).stats).toEqual({ cached: 0, compiled: 2, cacheDir: null });
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it('does not follow a link to a folder, even a private one', () => {
    const target = join(work, 'private');
    mkdirSync(target, { mode: 0o700 });
    const link = join(work, 'link');
    symlinkSync(target, link);
    expect(load(entry, link).stats).toEqual({ cached: 0, compiled: 2, cacheDir: null });
    expect(readdirSync(target)).toEqual([]);
  });

  it('makes missing parents of the cache folder, private', () => {
    const cacheDir = join(work, 'a', 'b', 'cache');
    expect(load(entry, cacheDir).stats).toEqual({ cached: 0, compiled: 2, cacheDir });
    expect(statSync(join(work, 'a')).mode & 0o777).toBe(0o700);
  });

  // Under /proc mkdir answers ENOENT below an existing folder: Node 20's recursive mkdir loops there for ever.
  (existsSync('/proc/self') ? it : it.skip)('ends, compiling in memory, when the folder cannot be made under /proc', () => {
    expect(load(entry, '/proc/sqlsweep-ts-cache/x').stats).toEqual({ cached: 0, compiled: 2, cacheDir: null });
  });

  it('works when the cache folder cannot be made', () => {
    const notAFolder = join(work, 'file');
    writeFileSync(notAFolder, '');
    const run = load(entry, join(notAFolder, 'cache'));
    expect(run.stats).toEqual({ cached: 0, compiled: 2, cacheDir: null });
    expect(run.result).toEqual({ seen: ['name:String', 'count:Number'], label: 'value 42' });
    expect(existsSync(join(notAFolder, 'cache'))).toBe(false);
  });
});
