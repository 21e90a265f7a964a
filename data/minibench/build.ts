// Builds the bundled minibench benchmark from data/minibench/src/<db_id>/ into BIRD layout under dist/.
// Run: node -r @swc-node/register data/minibench/build.ts [--force] [--src DIR] [--out DIR]
// The steps live in builder/: sources (folders, hash), sqlite-file, tables-entry, descriptions, questions,
// gold-check, write-benchmark and output-folder (the atomic swap).
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCurrentManifest, replaceDirectory } from './builder/output-folder';
import { hashSources, listDatabaseFolders } from './builder/sources';
import type { BuildMinibenchOptions, BuildMinibenchResult } from './builder/types';
import { buildInto } from './builder/write-benchmark';

export * from './builder/types';
export { MinibenchBuildError } from './builder/errors';
export { splitStatements, type ScriptStatement } from './builder/sql-script';
export { limitTieBreakVariants } from './builder/gold-check';

export async function buildMinibench(opts: BuildMinibenchOptions = {}): Promise<BuildMinibenchResult> {
  const srcDir = path.resolve(opts.srcDir ?? path.join(__dirname, 'src'));
  const outDir = path.resolve(opts.outDir ?? path.join(__dirname, 'dist'));
  const dbIds = listDatabaseFolders(srcDir);
  const sourceHash = hashSources(srcDir);

  if (!opts.force) {
    const current = readCurrentManifest(outDir, sourceHash);
    if (current) return { outDir, sourceHash, rebuilt: false, counts: current.counts };
  }

  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  const tmpDir = `${outDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(tmpDir);
  try {
    const counts = buildInto(srcDir, tmpDir, dbIds, sourceHash);
    replaceDirectory(tmpDir, outDir);
    return { outDir, sourceHash, rebuilt: true, counts };
  } catch (err) {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    throw err;
  }
}

// ------------------------------------------------------------------------------------------------------- CLI

async function main(argv: string[]): Promise<void> {
  const opts: BuildMinibenchOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--force') opts.force = true;
    else if (arg === '--src') opts.srcDir = argv[++i];
    else if (arg === '--out') opts.outDir = argv[++i];
    else throw new Error(`unknown argument ${arg} (usage: build.ts [--force] [--src DIR] [--out DIR])`);
  }
  const started = Date.now();
  const r = await buildMinibench(opts);
  const what = r.rebuilt ? `built in ${Date.now() - started} ms` : 'up to date, nothing to do';
  console.log(
    `minibench ${what}: ${r.counts.databases} databases, ${r.counts.train} train + ${r.counts.dev} dev questions -> ${r.outDir} (source ${r.sourceHash.slice(0, 12)})`,
  );
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}