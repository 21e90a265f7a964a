// Enforces the dependency rule of docs/architecture.md with Nx project tags; only libs/db may import Kysely.
// Style is not linted here. Needs the Nx project graph: scripts/check-architecture.ts computes it first.
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');

/** What each lib may import (by scope tag). */
const allowed = {
  contracts: [],
  config: [],
  'sql-sandbox': ['contracts'],
  datasets: ['contracts', 'sql-sandbox'],
  llm: ['contracts'],
  retrieval: ['contracts', 'config', 'datasets'],
  db: ['contracts'],
  queue: ['contracts'],
  // pipelines never reach storage or queues: stages are pure functions of their context.
  pipelines: ['contracts', 'datasets', 'retrieval', 'llm', 'sql-sandbox'],
  orchestration: ['contracts', 'config', 'datasets', 'db', 'queue', 'llm', 'pipelines', 'retrieval'],
  testing: ['contracts', 'config', 'db'],
};

function boundaries(extra) {
  return ['error', {
    enforceBuildableLibDependency: false,
    depConstraints: [
      // Apps use libs; nothing imports an app.
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'], bannedExternalImports: ['kysely'] },
      ...Object.entries(allowed).map(([scope, deps]) => ({
        sourceTag: `scope:${scope}`,
        onlyDependOnLibsWithTags: [...deps, ...extra].filter((d) => d !== scope).map((d) => `scope:${d}`),
        ...(scope === 'db' ? {} : { bannedExternalImports: ['kysely'] }),
      })),
    ],
  }];
}

const tests = ['**/*.spec.ts', '**/*.int-spec.ts', 'test/**/*.ts'];

module.exports = [
  { ignores: ['**/node_modules/**', '**/dist/**', 'apps/dashboard/**', '.sqlsweep/**', 'data/minibench/dist/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    // typescript-eslint is registered so that disable comments naming its rules resolve.
    plugins: { '@nx': nx, '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: { '@nx/enforce-module-boundaries': boundaries([]) },
  },
  // Tests may also use the test helpers of libs/testing.
  { files: tests, rules: { '@nx/enforce-module-boundaries': boundaries(['testing']) } },
];
