// Every representation the suites' requests encode is compared with JSON.stringify's text
// (src/core/resource/serialize/json-encoder.ts); the workers inherit this.
process.env.NETKEEL_VERIFY_JSON_ENCODER = '1';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.(t|j)s$': '<rootDir>/test/support/jest-transform.js' },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs)/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 120000,
  // Suites spend much of their time waiting on the databases: two workers overlap that.
  maxWorkers: 2,
};
