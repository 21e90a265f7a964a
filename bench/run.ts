/**
 * `npm run bench -- <name> [args]`: runs bench/<name>/run.ts, which writes bench/results/<name>.json.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const [name, ...args] = process.argv.slice(2);
const available = readdirSync(__dirname, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(__dirname, d.name, 'run.ts')))
  .map((d) => d.name);
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <name> [args]\n  benchmarks: ${available.join(', ')}`);
  process.exit(2);
}
const bench = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, name, 'run.ts'), ...args], { stdio: 'inherit' });
// A signal sent to this process alone (kill <pid>) reaches the benchmark, which then ends the servers and processes it started.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => bench.kill(signal));
bench.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
