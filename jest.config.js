// Every representation the suites' requests encode is compared with JSON.stringify's text
// (src/core/resource/serialize/json-encoder.ts); the workers inherit this.
process.env.NETKEEL_VERIFY_JSON_ENCODER = '1';

const { existsSync } = require('node:fs');

/**
 * Suites that need what this machine or run may lack: without it they are left out of the run
 * (never skipped inside it), with a line saying what is missing; under CI=true they run and fail
 * (.ci/run installs the programs and gives both database servers). The suites read the same paths.
 */
process.env.CHROMIUM_PATH ||= '/usr/bin/chromium';
const only = process.env.TEST_DATABASES?.split(',').map((s) => s.trim());
/** A database server in this run, as src/database/test-servers.ts's testDatabases() counts them. */
const server = (kind, url) => !!process.env[url] && (!only || only.includes(kind));
const program = (path, install) => ({ missing: !existsSync(path), why: `${path} is missing (${install})` });
const needs = [
  { suites: '/dist/test/browser/', ...program(process.env.CHROMIUM_PATH, "Debian's chromium package, apt-get install -y chromium, or CHROMIUM_PATH") },
  { suites: '/dist/test/deployment/nginx\\.e2e-spec\\.js$', ...program('/usr/sbin/nginx', "Debian's nginx package, apt-get install nginx; test/deployment/reverse-proxy.e2e-spec.ts covers the same without it") },
  {
    suites: '/dist/test/deployment/many-instances\\.e2e-spec\\.js$',
    missing: !server('postgres', 'TEST_POSTGRES_URL') && !server('mysql', 'TEST_MYSQL_URL'),
    why: 'it needs a database server: TEST_POSTGRES_URL or TEST_MYSQL_URL',
  },
  {
    suites: '/dist/test/deployment/mysql-trigger-rights\\.e2e-spec\\.js$',
    missing: !server('mysql', 'TEST_MYSQL_URL'),
    why: 'it needs a MySQL/MariaDB server: TEST_MYSQL_URL',
  },
];
const leftOut = process.env.CI === 'true' ? [] : needs.filter((n) => n.missing);
for (const n of leftOut) {
  // eslint-disable-next-line no-console
  console.warn(`netkeel: leaving out ${n.suites.replace(/\\|\$$/g, '')}: ${n.why}`);
}

/**
 * The suites run compiled: `npm test` type-checks first, and the type-check writes dist/ (tests
 * included), which jest-light-runner runs in plain Node worker threads. A worker keeps its
 * modules from one suite to the next, so the app's ~600 modules load (and their hot code gets
 * optimised) once per worker, not once per suite inside a fresh vm context as jest's own runner
 * does: half the CPU of a run. Suites therefore share module state within a worker: nothing in
 * a suite may depend on being the first to load a module or leave global state behind.
 */
const common = {
  runner: 'jest-light-runner',
  testEnvironment: 'node',
  moduleFileExtensions: ['js', 'json'],
  // No transform: the code is plain CommonJS from tsc.
  transform: {},
  // Stack traces and failure frames point at the TypeScript sources (tsc writes source maps).
  setupFiles: ['<rootDir>/test/support/source-maps.js'],
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
      roots: ['<rootDir>/dist/src', '<rootDir>/dist/test'],
      testMatch: ['**/*.spec.js'],
      testPathIgnorePatterns: ['\\.e2e-spec\\.js$'],
    },
    {
      // The API over HTTP on every database of the run: the migrated PGlite template and the
      // server check are made once, before any of these suites.
      ...common,
      displayName: 'e2e',
      roots: ['<rootDir>/dist/test'],
      testMatch: ['**/*.e2e-spec.js'],
      testPathIgnorePatterns: ['/node_modules/', ...leftOut.map((n) => n.suites)],
      globalSetup: '<rootDir>/dist/test/support/global-setup.js',
      globalTeardown: '<rootDir>/dist/test/support/global-teardown.js',
    },
  ],
};
