import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/** How to fork a sandbox child. */
export interface ChildEntry {
  modulePath: string;
  execArgv: string[];
  /** Where the child finds packages when its modules lie outside the repository. */
  nodePath?: string;
}

/** The environment to fork `entry` with (the parent's, read now, and `nodePath` first in NODE_PATH). */
export function childEnv(entry: ChildEntry): NodeJS.ProcessEnv {
  if (!entry.nodePath) return process.env;
  return { ...process.env, NODE_PATH: [entry.nodePath, ...(process.env.NODE_PATH ? [process.env.NODE_PATH] : [])].join(delimiter) };
}

interface Swc {
  version: string;
  transformSync(src: string, opts: object): { code: string };
}

/** A compiled entry and every file it loads (checked before each use: a temporary-folder cleaner may remove some). */
export type CompiledChild = ChildEntry & { files: string[] };

/** Compiled entries by root and entry; null: compiling failed, use the hook. */
const compiled = new Map<string, CompiledChild | null>();

/** Relative modules a TypeScript source imports at run time (`import type` is erased and not followed). */
function runtimeImports(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'(\.\/[\w.-]+)';/gm)) out.push(m[1]);
  for (const m of source.matchAll(/require\('(\.\/[\w.-]+)'\)/g)) out.push(m[1]);
  return out;
}

/** The sources of `entry` and of every relative module it imports at run time, by module name. */
function moduleGraph(entry: string, sourceDir: string): Map<string, string> {
  const sources = new Map<string, string>();
  const pending = [entry];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (sources.has(name)) continue;
    const source = readFileSync(join(sourceDir, `${name}.ts`), 'utf8');
    sources.set(name, source);
    pending.push(...runtimeImports(source).map((p) => p.slice(2)));
  }
  return sources;
}

/** Compiles every module of `sources` into `folder`; throws when a child could not load the result by itself. */
function writeCompiled(swc: Swc, sources: Map<string, string>, nodePath: string, folder: string): void {
  for (const [name, source] of sources) {
    const { code } = swc.transformSync(source, {
      filename: `${name}.ts`,
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
      sourceMaps: false,
    });
    // A require the child could not load from the compiled folder would make every child die at start (and the
    // pool broken): a relative module the graph missed ('../x', a re-export, a bare import), or a package that
    // is not plain JavaScript from `nodePath` (a workspace package's TypeScript main). Use the hook instead.
    for (const m of code.matchAll(/require\("([^"]+)"\)/g)) {
      const spec = m[1];
      const ok = spec.startsWith('.')
        ? spec.startsWith('./') && sources.has(spec.slice(2))
        : !/\.[cm]?tsx?$/.test(require.resolve(spec, { paths: [nodePath] }));
      if (!ok) throw new Error(`${name} requires ${spec}`);
    }
    writeFileSync(join(folder, `${name}.js`), code);
  }
}

/** Ours alone: a folder owned by this user that nobody else can write to (the temporary folder is shared). */
function isPrivateFolder(dir: string): boolean {
  const s = lstatSync(dir);
  return s.isDirectory() && s.uid === process.getuid?.() && (s.mode & 0o022) === 0;
}

/**
 * The child's modules compiled to plain JavaScript, or null when that fails. A child started with the TypeScript
 * register hook spends about a second loading it (several on a loaded machine), which is what an extra child or a
 * replacement waits for. The folder is named by the hash of the sources and of the compiler's version, made once
 * (written aside, then renamed into place) and shared by later processes.
 */
export function compileChild(entry: string, root: string, sourceDir = __dirname): CompiledChild | null {
  try {
    // Present whenever this file runs as TypeScript: the register hook that loaded it depends on it.
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const swc = require('@swc/core') as Swc;
    // Packages (better-sqlite3) are found from the folder that holds them, not from the temporary one.
    const nodePath = dirname(dirname(require.resolve('better-sqlite3/package.json')));
    const sources = moduleGraph(entry, sourceDir);
    const hash = createHash('sha256').update(swc.version);
    for (const [name, source] of [...sources].sort(([a], [b]) => a.localeCompare(b))) hash.update(`\0${name}\0${source}`);
    const dir = join(root, `sqlsweep-sandbox-child-${process.getuid?.() ?? 0}-${hash.digest('hex').slice(0, 16)}`);
    const files = [...sources.keys()].map((name) => join(dir, `${name}.js`));
    if (!files.every((f) => existsSync(f))) {
      // Never made, or partly removed since by a temporary-folder cleaner: made (again) aside, then put in place.
      rmSync(dir, { recursive: true, force: true });
      const aside = mkdtempSync(`${dir}.tmp-`);
      try {
        writeCompiled(swc, sources, nodePath, aside);
      } catch (err) {
        rmSync(aside, { recursive: true, force: true });
        throw err;
      }
      try {
        renameSync(aside, dir);
      } catch {
        rmSync(aside, { recursive: true, force: true }); // another process made it first
      }
    }
    if (!isPrivateFolder(dir)) return null;
    return { modulePath: join(dir, `${entry}.js`), execArgv: [], nodePath, files };
  } catch {
    return null;
  }
}

/**
 * Built JavaScript: the `.js` beside this file. TypeScript sources (tests, bench, `node -r @swc-node/register`):
 * the compiled copy (in `root`, the temporary folder by default), else the `.ts` with the register hook.
 */
export function sandboxChildEntry(entry: string, root = tmpdir()): ChildEntry {
  if (!__filename.endsWith('.ts')) return { modulePath: join(__dirname, `${entry}.js`), execArgv: [] };
  // Made again when a temporary-folder cleaner removed it since: a child that cannot start would break the pool.
  const id = `${root}\0${entry}`;
  const known = compiled.get(id);
  if (known === undefined || (known && !known.files.every((f) => existsSync(f)))) compiled.set(id, compileChild(entry, root));
  return compiled.get(id) ?? { modulePath: join(__dirname, `${entry}.ts`), execArgv: ['-r', require.resolve('@swc-node/register')] };
}
