import type { Command } from 'commander';
import { parseEnv, workerEnvSchema } from '@sqlsweep/config';
import { DatasetError, type DatasetFormat } from '@sqlsweep/datasets';
import { registerDataset, type RegisteredDataset } from '@sqlsweep/orchestration';
import { cliEnv, openCore } from '../cli-env';
import { table } from '../render';

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
    .description('register a dataset folder as a version (content hash of every file); make and verify read-only replicas')
    .argument('<name>')
    .requiredOption('--format <format>', 'spider | bird | minibench')
    .requiredOption('--path <dir>', 'dataset folder')
    .action(async (name: string, opts: { format: string; path: string }) => {
      if (!['spider', 'bird', 'minibench'].includes(opts.format)) throw new Error(`--format: expected spider, bird or minibench, got "${opts.format}"`);
      const env = cliEnv();
      const limits = parseEnv(sandboxEnvSchema, process.env, 'sqlsweep environment');
      const core = await openCore(env);
      try {
        const r = await registerDataset(core.datasets, {
          name, format: opts.format as DatasetFormat, path: opts.path, dataDir: env.SQLSWEEP_DATA_DIR,
          sandbox: { size: limits.SQLSWEEP_SANDBOX_SIZE, deadlineMs: limits.SQLSWEEP_SQL_DEADLINE_MS },
        });
        console.log(`${r.created ? 'registered' : 'already registered'}: ${name}@${r.version.contentHash.slice(0, 12)} (${r.items} items, ${r.databases} databases)`);
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
    .command('list')
    .description('list registered dataset versions')
    .action(async () => {
      const core = await openCore();
      try {
        const versions = await core.datasets.listVersions();
        console.log(table(['dataset', 'version', 'format', 'items', 'path'], versions.map((v) => [v.datasetName, v.contentHash.slice(0, 12), v.format, v.itemCount, v.sourcePath])));
      } finally {
        await core.close();
      }
    });
}
