/**
 * The dependency rule of docs/architecture.md: Nx project tags checked by @nx/enforce-module-boundaries (which
 * also reports circular project dependencies), and dpdm for circular imports between files.
 */
import { join } from 'node:path';
import { projectDir } from './setup';
import { runSteps } from './run-steps';

const bin = (name: string) => join(projectDir, 'node_modules', '.bin', name);
/** Every Nx project's folder: the boundary rule covers the whole repository, not only apps and libs. */
const rooms = ['apps', 'libs', 'infra', 'scripts', 'bench', 'test', 'data'];

runSteps([
  { name: 'nx project graph', command: bin('nx'), args: ['show', 'projects'], env: { NX_DAEMON: 'false' } },
  { name: 'module boundaries (eslint @nx/enforce-module-boundaries)', command: bin('eslint'), args: ['--max-warnings', '0', ...rooms] },
  { name: 'import cycles (dpdm)', command: bin('dpdm'), args: ['--no-warning', '--no-tree', '--exit-code', 'circular:1', '-T', 'libs/*/src/index.ts', 'apps/*/src/main.ts'] },
], projectDir).catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
