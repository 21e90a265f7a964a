/**
 * Preloaded into the benchmark's workers by `--cpu-prof DIR` (Node refuses `--cpu-prof` in NODE_OPTIONS): profiles the
 * worker process with the inspector from start-up, and on SIGTERM writes `<DIR>/worker-<pid>.cpuprofile` before the
 * worker's own shutdown hooks finish. Other processes that inherit the preload (sandbox children) are not profiled.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.SQLSWEEP_BENCH_CPU_PROF_DIR;
if (dir && process.argv.some((a) => a.endsWith('apps/worker/src/main.ts'))) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  const stop = () => {
    process.removeListener('SIGTERM', stop);
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, `worker-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on('SIGTERM', stop);
}
