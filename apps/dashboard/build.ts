import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

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

/** Builds the dashboard with Vite into apps/dashboard/dist, skipping the build when sources are unchanged. */
export async function buildDashboard(): Promise<{ outDir: string; rebuilt: boolean }> {
  const hash = dashboardSourcesHash();
  if (existsSync(join(outDir, 'index.html')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) {
    return { outDir, rebuilt: false };
  }
  // Vite is ESM; Node 20.19+ loads it through require, which is what this CommonJS build compiles import() to.
  const { build } = await import('vite');
  await build({ configFile: join(appDir, 'vite.config.mts'), root: appDir, logLevel: 'warn' });
  writeFileSync(stampFile, hash);
  return { outDir, rebuilt: true };
}

if (require.main === module) {
  buildDashboard().then(
    (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
    (e: unknown) => { process.stderr.write(`${(e as Error).stack ?? String(e)}\n`); process.exit(1); },
  );
}
