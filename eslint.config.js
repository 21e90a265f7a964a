// Enforces the dependency rule of docs/architecture.md with Nx project tags; only libs/db may import Kysely.
// Every room of the repository is an Nx project (apps, libs, infra, scripts, bench, test, data/minibench), so the rule
// covers all of it. Style is not linted here. Needs the Nx project graph: scripts/check-architecture.ts computes it first.
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');

/** What each lib may import (by scope tag). */
const libs = {
  contracts: [],
  config: [],
  'sql-sandbox': ['contracts'],
  datasets: ['contracts', 'sql-sandbox'],
  llm: ['contracts'],
  retrieval: ['contracts', 'config', 'datasets'],
  // db and queue log connection errors through config's throttled warnings.
  db: ['contracts', 'config'],
  queue: ['contracts', 'config'],
  // pipelines never reach storage or queues: stages are pure functions of their context.
  pipelines: ['contracts', 'datasets', 'retrieval', 'llm', 'sql-sandbox'],
  orchestration: ['contracts', 'config', 'datasets', 'db', 'queue', 'llm', 'pipelines', 'retrieval'],
  // The test helpers: databases and queues of a test's own, and the system's processes started as a user starts them.
  testing: ['contracts', 'config', 'db'],
};
const everyLib = Object.keys(libs);

/** What each project outside libs may import (by scope tag); apps are `type:app` and use libs only. */
const rooms = {
  // Redis and Postgres found, started or installed for set-up and the tests: no part of the system itself.
  infra: ['contracts', 'config'],
  // The bundled benchmark's builder (data/minibench): it reads and checks databases as the system does.
  minibench: ['contracts', 'datasets', 'sql-sandbox'],
  // The dashboard talks to the API only, through its typed contract.
  dashboard: ['contracts'],
  // The repository's commands (set-up, demo, test runs, this check).
  scripts: ['contracts', 'config', 'retrieval', 'infra', 'minibench'],
  // The benches drive the system like the end-to-end suites, through libs/testing, never test/.
  bench: [...everyLib, 'infra', 'scripts', 'minibench'],
  // The end-to-end suites (test/): every lib and the test helpers; Kysely only through libs/db.
  e2e: [...everyLib, 'infra', 'minibench'],
};

/**
 * Apps that a room imports to drive them in-process (Nx forbids importing an app; `allow` lifts that, for these
 * imports of these rooms only): the end-to-end suites start the API and the stage runner in-process, the benches the
 * LLM simulator, the scripts the dashboard's build and the CLI's local simulator.
 */
const drivesApps = {
  e2e: ['orchestrator', 'worker', 'llm-sim', 'cli', 'dashboard'],
  bench: ['llm-sim'],
  scripts: ['cli', 'dashboard'],
};

function boundaries({ extra = [], allow = [] } = {}) {
  return ['error', {
    enforceBuildableLibDependency: false,
    allow,
    depConstraints: [
      // Apps use libs; nothing imports an app.
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'], bannedExternalImports: ['kysely'] },
      ...Object.entries({ ...libs, ...rooms }).map(([scope, deps]) => ({
        sourceTag: `scope:${scope}`,
        onlyDependOnLibsWithTags: [...deps, ...extra].filter((d) => d !== scope).map((d) => `scope:${d}`),
        ...(scope === 'db' ? {} : { bannedExternalImports: ['kysely'] }),
      })),
    ],
  }];
}

const appImports = (room) => [`^@sqlsweep/(${drivesApps[room].join('|')})(/|$)`];
const tests = ['**/*.spec.ts', '**/*.int-spec.ts', 'test/**/*.ts'];

module.exports = [
  { ignores: ['**/node_modules/**', '**/dist/**', '.sqlsweep/**'] },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: { parser: tseslint.parser },
    // typescript-eslint is registered so that disable comments naming its rules resolve.
    plugins: { '@nx': nx, '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: { '@nx/enforce-module-boundaries': boundaries() },
  },
  ...['scripts', 'bench'].map((room) => ({
    files: [`${room}/**/*.ts`],
    rules: { '@nx/enforce-module-boundaries': boundaries({ allow: appImports(room) }) },
  })),
  // Tests may also use the test helpers of libs/testing.
  { files: tests, rules: { '@nx/enforce-module-boundaries': boundaries({ extra: ['testing'] }) } },
  // The Kubernetes manifests' spec checks the KEDA queries against the system's queue names.
  { files: ['infra/k8s/**/*.spec.ts'], rules: { '@nx/enforce-module-boundaries': boundaries({ extra: ['testing', 'queue'] }) } },
  // infra's integration specs check the servers it starts with the system's own database client.
  { files: ['infra/**/*.int-spec.ts'], rules: { '@nx/enforce-module-boundaries': boundaries({ extra: ['testing', 'db'] }) } },
  // The scale dataset's spec checks that the LLM simulator's gold index knows every generated question.
  { files: ['data/minibench/scale/*.spec.ts'], rules: { '@nx/enforce-module-boundaries': boundaries({ allow: ['^@sqlsweep/llm-sim(/|$)'] }) } },
  { files: ['test/**/*.ts'], rules: { '@nx/enforce-module-boundaries': boundaries({ extra: ['testing'], allow: appImports('e2e') }) } },
];
