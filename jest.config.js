// Three Jest projects, each runnable alone (`npm run test:unit`, `test:int`, `test:e2e`; `npm test` runs all three):
// - unit: *.spec.ts beside the code; no services (they must pass with Redis and Postgres unreachable);
// - int:  *.int-spec.ts beside the code, against the machine's real Redis and Postgres;
// - e2e:  test/*.e2e-spec.ts, real services and real processes.
// Only int and e2e have the global set-up that brings Redis and Postgres up (Jest runs a shared set-up file once);
// the unit project's set-up builds the minibench, which needs no service.
const fs = require('node:fs');
const swc = JSON.parse(fs.readFileSync(`${__dirname}/.swcrc`, 'utf8'));
delete swc.$schema;

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/apps/dashboard/'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
};
const withServices = {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: 2,
  testTimeout: 60_000, // Jest reads it from the top level only, not per project
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,data,infra}/**/*.spec.ts'],
      globalSetup: '<rootDir>/test/unit-setup.ts',
    },
    { ...shared, ...withServices, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,data,infra}/**/*.int-spec.ts'] },
    { ...shared, ...withServices, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
