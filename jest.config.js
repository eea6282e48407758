// Every representation the suites' requests encode is compared with JSON.stringify's text
// (src/core/resource/serialize/json-encoder.ts); the workers inherit this.
process.env.NETKEEL_VERIFY_JSON_ENCODER = '1';

const common = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.(t|j)s$': '<rootDir>/test/support/jest-transform.js' },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs)/)'],
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 120000,
  // Suites spend much of their time waiting on the databases: two workers overlap that.
  maxWorkers: 2,
  // Long suites first, also on a clean clone without jest's cache of durations.
  testSequencer: '<rootDir>/test/support/sequencer.js',
  projects: [
    {
      // Pure helpers and the database gateway: no migrated template, no server.
      ...common,
      displayName: 'unit',
      roots: ['<rootDir>/src', '<rootDir>/test'],
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['\\.e2e-spec\\.ts$'],
    },
    {
      // The API over HTTP on every database of the run: the migrated PGlite template and the
      // server check are made once, before any of these suites.
      ...common,
      displayName: 'e2e',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
