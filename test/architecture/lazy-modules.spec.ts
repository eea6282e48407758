import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/core/testing/repo-root';

/**
 * Libraries that only some requests need are loaded by the first of them, not with the
 * application (each costs heap, and so RSS, in every process): GraphQL's engine
 * (core/graphql/graphql.service.ts loads graphql-engine.ts and graphql-js) and liquidjs
 * (core/template/template.ts). Checked in a process of its own: what the application's modules
 * load, then what a first use loads.
 */
describe('modules loaded with the application', () => {
  it('leave out graphql and liquidjs until they are first used', () => {
    const dist = (p: string) => JSON.stringify(join(REPO_ROOT, 'dist/src', p));
    const script = `
      require('reflect-metadata');
      require(${dist('bootstrap.js')});
      require(${dist('app.module.js')});
      const loaded = (name) => Object.keys(require.cache).some((f) => f.includes('/node_modules/' + name + '/'));
      const seen = [];
      const look = (when) => seen.push([when, loaded('graphql'), loaded('liquidjs')]);
      look('with the application');
      require(${dist('core/template/template.js')}).templates.validate('{{ obj.name | upper }}');
      look('after a template is compiled');
      require(${dist('core/graphql/graphql.service.js')}).declaredVariables('query ($n: String = "x") { a }');
      look('after a query is read');
      process.stdout.write(JSON.stringify(seen));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, encoding: 'utf8' }));
    expect(out).toEqual([
      ['with the application', false, false],
      ['after a template is compiled', false, true],
      ['after a query is read', true, true],
    ]);
  });

  it("load class-validator's parts netkeel uses, not its index (libphonenumber-js, all of validator.js)", () => {
    const script = `
      require('reflect-metadata');
      require(${JSON.stringify(join(REPO_ROOT, 'dist/src/bootstrap.js'))});
      require(${JSON.stringify(join(REPO_ROOT, 'dist/src/app.module.js'))});
      const files = Object.keys(require.cache);
      const withApp = [files.some((f) => f.endsWith('/class-validator/cjs/index.js')), files.some((f) => f.includes('/node_modules/libphonenumber-js/'))];
      // Each part is the very function the index exports (loaded now, for the comparison).
      const parts = require(${JSON.stringify(join(REPO_ROOT, 'dist/src/core/class-validator.js'))});
      const index = require('class-validator');
      const differ = Object.keys(parts).filter((k) => k !== 'validateSync' && parts[k] !== index[k]);
      process.stdout.write(JSON.stringify({ withApp, differ, parts: Object.keys(parts).length }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, encoding: 'utf8' }));
    expect(out).toEqual({ withApp: [false, false], differ: [], parts: 13 });
  });
});
