import type { Command } from 'commander';
import { spawnWorkers } from '../local-processes';

export function registerWorkersCommand(program: Command): void {
  program
    .command('workers')
    .description('run worker processes on this machine until interrupted')
    .option('--count <n>', 'processes', (v) => parseInt(v, 10), 2)
    .option('--roles <roles>', 'comma-separated roles: llm,sql,retrieval', 'llm,sql,retrieval')
    .action(async (opts: { count: number; roles: string }) => {
      const workers = spawnWorkers(opts.count, process.env, { roles: opts.roles, stdio: 'inherit' });
      console.log(`${opts.count} worker process(es) serving ${opts.roles}; Ctrl-C stops them after their active jobs`);
      const stop = () => void Promise.all(workers.map((w) => w.stop())).then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await new Promise(() => undefined);
    });
}
