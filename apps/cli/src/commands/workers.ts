import type { Command } from 'commander';
import { spawnWorkers } from '../local-processes';
import { WorkerSupervisor } from '../worker-supervisor';

export function registerWorkersCommand(program: Command): void {
  program
    .command('workers')
    .description('run worker processes on this machine until interrupted; one that dies is restarted (with backoff)')
    .option('--count <n>', 'processes', (v) => parseInt(v, 10), 2)
    .option('--roles <roles>', 'comma-separated roles: llm,sql,retrieval', 'llm,sql,retrieval')
    .action(async (opts: { count: number; roles: string }) => {
      const workers = new WorkerSupervisor(opts.count, {
        spawn: () => spawnWorkers(1, process.env, { roles: opts.roles, stdio: 'inherit' })[0]!,
        say: (line) => console.log(line),
      });
      console.log(`${opts.count} worker process(es) serving ${opts.roles} (pids ${workers.pids().join(', ')}); Ctrl-C stops them after their active jobs`);
      const stop = () => void workers.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await new Promise(() => undefined);
    });
}
