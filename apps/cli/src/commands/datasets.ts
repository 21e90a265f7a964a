import type { Command } from 'commander';
import type { DatasetFormat } from '@sqlsweep/datasets';
import { registerDataset } from '@sqlsweep/orchestration';
import { cliEnv, openCore } from '../cli-env';
import { table } from '../render';

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
      const core = await openCore(env);
      try {
        const r = await registerDataset(core.datasets, { name, format: opts.format as DatasetFormat, path: opts.path, dataDir: env.SQLSWEEP_DATA_DIR });
        console.log(`${r.created ? 'registered' : 'already registered'}: ${name}@${r.version.contentHash.slice(0, 12)} (${r.items} items, ${r.databases} databases)`);
        for (const p of r.problems) console.log(`  flagged: ${p.file}${p.item ? ` item ${p.item}` : ''}: ${p.message}`);
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
