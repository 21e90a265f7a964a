import type { Command } from 'commander';
import { openCore } from '../cli-env';
import { spawnWorkers, type LocalProcess } from '../local-processes';

const kinds = ['table', 'column'] as const;

/** `sqlsweep index build <dataset>`: retrieval workers build every schema index of a dataset version, once. */
export function registerIndexBuildCommand(program: Command): void {
  const index = program.commands.find((c) => c.name() === 'index') ?? program.command('index').description('retrieval indexes');
  index
    .command('build')
    .description('have retrieval workers build the table and column indexes of a registered dataset (skipped when built)')
    .argument('<dataset>', 'registered dataset name')
    .option('--version <hash>', 'dataset version (hash prefix); default the newest')
    .option('--workers <n>', 'local retrieval workers to start (default: 1 when none is connected)', (v) => parseInt(v, 10))
    .action(async (dataset: string, opts: { version?: string; workers?: number }) => {
      const core = await openCore();
      const workers: LocalProcess[] = [];
      try {
        const version = await core.datasets.findVersion(dataset, opts.version);
        if (!version) throw new Error(`no registered dataset "${dataset}"${opts.version ? ` with version ${opts.version}` : ''}`);
        const dbs = await core.datasets.listDatabases(version.id);
        const jobs = dbs.flatMap((db) => kinds.map((kind) => ({
          key: `${version.id}-${db.dbId}-${kind}`,
          payload: { datasetVersionId: version.id, dbId: db.dbId, kind },
        })));
        await core.queue.enqueueMany('index.build', jobs);
        const wanted = opts.workers ?? ((await core.queue.workerCount('stage-retrieval')) > 0 ? 0 : 1);
        if (wanted > 0) workers.push(...spawnWorkers(wanted, process.env, { roles: 'retrieval' }));
        console.log(`${jobs.length} index jobs for ${dataset}@${version.contentHash.slice(0, 12)} (${dbs.length} databases x ${kinds.join(', ')})`);
        const queue = core.queue.queue('stage-retrieval');
        let last = '';
        for (;;) {
          const states = await Promise.all(jobs.map(async (j) => (await queue.getJob(`index-${j.key}`))?.getState() ?? 'unknown'));
          const done = states.filter((s) => s === 'completed').length;
          const failed = states.filter((s) => s === 'failed').length;
          const line = `built ${done}/${jobs.length}${failed ? `, ${failed} failed` : ''}`;
          if (line !== last) console.log(line);
          last = line;
          if (done + failed === jobs.length) {
            if (failed) {
              for (const j of jobs) {
                const job = await queue.getJob(`index-${j.key}`);
                if ((await job?.getState()) === 'failed') console.error(`  ${j.payload.dbId} ${j.payload.kind}: ${job?.failedReason}`);
              }
              process.exitCode = 1;
            }
            break;
          }
          await new Promise((r) => setTimeout(r, 300));
        }
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        await core.close();
      }
    });
}
