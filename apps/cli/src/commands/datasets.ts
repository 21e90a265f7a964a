import type { Command } from 'commander';
import { parseEnv, workerEnvSchema } from '@sqlsweep/config';
import { DATASET_SOURCE_FORMATS, DatasetError, type DatasetSourceFormat } from '@sqlsweep/datasets';
import { registerDataset, type RegisteredDataset } from '@sqlsweep/orchestration';
import { cliEnv, openCore } from '../cli-env';
import { formatBytes, table } from '../render';

/** Gold queries are checked under the limits the workers will run them with. */
const sandboxEnvSchema = workerEnvSchema.pick({ SQLSWEEP_SANDBOX_SIZE: true, SQLSWEEP_SQL_DEADLINE_MS: true });

function printGoldFlags(r: RegisteredDataset): void {
  if (r.goldFlags.length === 0) {
    console.log('  gold SQL: every item\'s gold query runs within the sandbox\'s limits');
    return;
  }
  const counts = new Map<string, number>();
  for (const f of r.goldFlags) counts.set(f.flag, (counts.get(f.flag) ?? 0) + 1);
  const summary = [...counts].map(([flag, n]) => `${n} ${flag}`).join(', ');
  console.log(`  gold SQL flagged for ${r.goldFlags.length} item(s) (${summary}); sweeps leave these items out:`);
  for (const f of r.goldFlags) console.log(`    ${f.itemId}: ${f.flag}: ${f.reason}`);
}

export function registerDatasetsCommand(program: Command): void {
  const datasets = program.command('datasets').description('register and list dataset versions');
  datasets
    .command('add')
    .description('register a dataset folder as a version (content hash of every file); store its files in the dataset store once; make and verify read-only replicas')
    .argument('<name>')
    .requiredOption('--format <format>', DATASET_SOURCE_FORMATS.join(' | '))
    .requiredOption('--path <dir>', 'dataset folder (for spider-syn, spider-realistic, spider-dk: the variant\'s folder)')
    .option('--spider <dir>', 'spider-syn, spider-realistic, spider-dk: the Spider folder (tables.json, database/, train_spider.json) their questions run on; default: --path')
    .action(async (name: string, opts: { format: string; path: string; spider?: string }) => {
      if (!(DATASET_SOURCE_FORMATS as readonly string[]).includes(opts.format)) {
        throw new Error(`--format: expected ${DATASET_SOURCE_FORMATS.join(', ')}, got "${opts.format}"`);
      }
      const env = cliEnv();
      const limits = parseEnv(sandboxEnvSchema, process.env, 'sqlsweep environment');
      const core = await openCore(env);
      try {
        const r = await registerDataset(core.datasets, {
          name, format: opts.format as DatasetSourceFormat, path: opts.path, spiderPath: opts.spider, dataDir: env.SQLSWEEP_DATA_DIR,
          sandbox: { size: limits.SQLSWEEP_SANDBOX_SIZE, deadlineMs: limits.SQLSWEEP_SQL_DEADLINE_MS },
        });
        console.log(`${r.created ? 'registered' : 'already registered'}: ${name}@${r.version.contentHash.slice(0, 12)} (${r.items} items, ${r.databases} databases)`);
        console.log(`  dataset store: ${r.stored.files} file(s) stored (${formatBytes(r.stored.bytes)}), ${r.stored.alreadyStored} already there`);
        for (const p of r.problems) console.log(`  flagged: ${p.file}${p.item ? ` item ${p.item}` : ''}: ${p.message}`);
        printGoldFlags(r);
      } catch (e) {
        // A dataset the user must fix: one line naming the file, nothing registered.
        if (!(e instanceof DatasetError)) throw e;
        process.stderr.write(`sqlsweep: datasets add: ${e.message}; nothing was registered\n`);
        process.exitCode = 2;
      } finally {
        await core.close();
      }
    });
  datasets
    .command('list', { isDefault: true })
    .description('list registered dataset versions with their files\' size in the dataset store (the default)')
    .action(async () => {
      const core = await openCore();
      try {
        const [versions, sizes, totals] = await Promise.all([core.datasets.listVersions(), core.datasets.files.versionSizes(), core.datasets.files.totals()]);
        console.log(table(['dataset', 'version', 'format', 'items', 'files', 'stored', 'registered from'], versions.map((v) => {
          const size = sizes.get(v.id);
          const stored = !size ? 'not stored: add it again' : size.missing > 0 ? `${size.missing} of ${size.files} missing: add it again` : formatBytes(size.bytes);
          return [v.datasetName, v.contentHash.slice(0, 12), v.format, v.itemCount, size?.files ?? 0, stored, v.sourcePath];
        })));
        console.log(`dataset store (${core.datasets.files.where}): ${totals.files} files, ${formatBytes(totals.bytes)} (a file shared by versions is stored once)`);
      } finally {
        await core.close();
      }
    });
  datasets
    .command('gc')
    .description('remove stored dataset files that no registered version names')
    .option('--min-age-minutes <n>', 'keep files stored or found by a registration in the last n minutes (it may be about to name them)', (v) => parseMinutes(v), 10)
    .action(async (opts: { minAgeMinutes: number }) => {
      const core = await openCore();
      try {
        const removed = await core.datasets.files.gc({ minAgeMs: opts.minAgeMinutes * 60_000 });
        const left = await core.datasets.files.totals();
        console.log(`removed ${removed.files} unreferenced file(s), ${formatBytes(removed.bytes)}; the store keeps ${left.files} file(s), ${formatBytes(left.bytes)}`);
      } finally {
        await core.close();
      }
    });
}

function parseMinutes(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--min-age-minutes: expected a number of minutes >= 0, got "${v}"`);
  return n;
}

