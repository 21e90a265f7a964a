/**
 * `npm test`: set-up (services, minibench), then type-check, the architecture check and every Jest project
 * (unit, int, e2e; see jest.config.js). `npm run test:unit`, `test:int` and `test:e2e` run one project:
 * unit with no set-up and no service (its Jest set-up builds the minibench), int and e2e after the set-up.
 * Extra arguments go to Jest: `npm test -- libs/db`, `npm run test:int -- libs/db`.
 */
import { join } from 'node:path';
import { projectDir, setup } from './setup';
import { runSteps, type Step } from './run-steps';

const JEST_PROJECTS = ['unit', 'int', 'e2e'] as const;
type JestProject = (typeof JEST_PROJECTS)[number];

/** `--project <name>` first picks one Jest project; everything else goes to Jest. */
function parseArgs(argv: string[]): { project: JestProject | null; jestArgs: string[] } {
  if (argv[0] !== '--project') return { project: null, jestArgs: argv };
  const project = JEST_PROJECTS.find((p) => p === argv[1]);
  if (!project) throw new Error(`scripts/test.ts: --project must be one of ${JEST_PROJECTS.join(', ')}, got ${argv[1] ?? 'nothing'}`);
  return { project, jestArgs: argv.slice(2) };
}

/** Last on Jest's command line: `--selectProjects` takes every value after it, so a path placed after it would be lost. */
function selectProject(project: JestProject): string[] {
  return ['--selectProjects', project];
}

async function main(): Promise<void> {
  const { project, jestArgs } = parseArgs(process.argv.slice(2));
  const bin = (name: string) => join(projectDir, 'node_modules', '.bin', name);
  if (project === 'unit') {
    await runSteps([{ name: 'jest (unit)', command: bin('jest'), args: ['--ci', ...jestArgs, ...selectProject('unit')] }], projectDir);
    return;
  }
  const endpoints = await setup({ allowEmbeddedPostgres: false });
  const env = { REDIS_URL: endpoints.redisUrl, DATABASE_URL: endpoints.databaseUrl, NX_DAEMON: 'false' };
  const jest: Step = { name: `jest (${project ?? 'unit, int, e2e'})`, command: bin('jest'), args: ['--ci', ...jestArgs, ...(project ? selectProject(project) : [])], env };
  if (project) {
    await runSteps([jest], projectDir);
    return;
  }
  await runSteps([
    { name: 'type-check (tsc --noEmit, strict)', command: bin('tsc'), args: ['--noEmit', '-p', 'tsconfig.json'] },
    { name: 'architecture (Nx tags, module boundaries, cycles)', command: process.execPath, args: ['-r', '@swc-node/register', 'scripts/check-architecture.ts'], env },
    jest,
  ], projectDir);
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
