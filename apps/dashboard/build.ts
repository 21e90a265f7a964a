import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const appDir = __dirname;
const outDir = join(appDir, 'dist');
const stampFile = join(outDir, '.sources-hash');
const sourceEntries = ['index.html', 'src', 'vite.config.mts', 'package.json', 'tsconfig.json'];

function listFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).sort().flatMap((name) => listFiles(join(path, name)));
}

/** A hash of every source file's path and content: the build is redone only when it changes. */
export function dashboardSourcesHash(): string {
  const h = createHash('sha256');
  for (const file of sourceEntries.flatMap((e) => listFiles(join(appDir, e)))) {
    h.update(relative(appDir, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return h.digest('hex');
}

/**
 * Vite is ESM only: it runs in its own Node process, so the build works from any caller (CommonJS scripts, Jest's
 * module system, which cannot require ESM on Node 20).
 */
function runViteBuild(): Promise<void> {
  const viteBin = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [viteBin, 'build', '--config', 'vite.config.mts', '--logLevel', 'warn'], { cwd: appDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`vite build of ${appDir} failed (${signal ?? `exit ${code}`}):\n${output}`))));
  });
}

/** Builds the dashboard with Vite into apps/dashboard/dist, skipping the build when sources are unchanged. */
export async function buildDashboard(): Promise<{ outDir: string; rebuilt: boolean }> {
  const hash = dashboardSourcesHash();
  if (existsSync(join(outDir, 'index.html')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) {
    return { outDir, rebuilt: false };
  }
  await runViteBuild();
  writeFileSync(stampFile, hash);
  return { outDir, rebuilt: true };
}

if (require.main === module) {
  buildDashboard().then(
    (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
    (e: unknown) => { process.stderr.write(`${(e as Error).stack ?? String(e)}\n`); process.exit(1); },
  );
}
