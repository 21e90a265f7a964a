import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Starts `<dir>/<name>.ts|.js` in a worker thread. From a source checkout (tests, `node -r @swc-node/register`)
 * the worker compiles TypeScript on the fly as well; `@swc-node/register` is resolved here, because an eval'd
 * worker resolves modules from the process's cwd.
 */
export function spawnModuleWorker(dir: string, name: string, workerData: unknown): Worker {
  const typescript = __filename.endsWith('.ts');
  const entry = join(dir, `${name}${typescript ? '.ts' : '.js'}`);
  if (!typescript) return new Worker(entry, { workerData });
  const register = require.resolve('@swc-node/register');
  return new Worker(`require(${JSON.stringify(register)}); require(${JSON.stringify(entry)});`, { eval: true, workerData });
}
