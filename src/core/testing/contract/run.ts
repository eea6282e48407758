import { listPath, objectType, ResourceDefinition } from '../../resource/definition';
import { ResourceRegistry } from '../../resource/registry';
import { StartOptions, startApp, TestApp } from '../harness';
import { Kind, testDatabases } from '../../../database/test-servers';
import { cascadeContract } from './cascades';
import { csvContract } from './csv';
import type { Fixtures } from './fixture';
import { filterContract } from './filters';
import { garbageContract } from './garbage';
import { leakContract } from './leaks';
import { massAssignmentContract } from './mass-assignment';
import { ModelRun } from './model-run';
import { permissionsContract } from './permissions';
import { readContract, treeContract } from './read';
import { writeContract } from './write';


/**
 * The generic API contract (the reference's APIViewTestCases, plus what netkeel promises beyond
 * them) for every model the app registers, on one server of one database kind: each model's
 * fixture makes its objects, then its sections run, then the filter contract runs over all the
 * objects the models left. One server per database per run, so a model costs its tests, not a
 * server start. A registered model without a fixture fails the run. `opts` starts the server
 * otherwise (a plugin's models: `{ env: { PLUGINS: ... } }`, with only its resources listed).
 */
export function runContracts(kind: Kind, fixtures: Fixtures, resources: ResourceDefinition[], opts: StartOptions & { crossModels?: ResourceDefinition[] } = {}): void {
  // Models that join the sections over every model (filters, leaks, cascades) without their own.
  const across = [...resources, ...(opts.crossModels ?? []).filter((d) => !resources.includes(d))];
  const enabled = testDatabases().includes(kind);
  (enabled ? describe : describe.skip)(`model contracts [${kind}]`, () => {
    let app: TestApp | undefined;
    const t = () => {
      if (!app) throw new Error('app not started');
      return app;
    };
    beforeAll(async () => {
      app = await startApp(kind, opts);
    });
    afterAll(async () => {
      await app?.close();
    });

    it('has a fixture for every registered model, and none for a model that is not registered', () => {
      const registered = t().app.get(ResourceRegistry).all().map(objectType).sort();
      expect({ withoutFixture: registered.filter((type) => !fixtures[type]) }).toEqual({ withoutFixture: [] });
      expect({ notRegistered: Object.keys(fixtures).filter((type) => !registered.includes(type)) }).toEqual({ notRegistered: [] });
    });

    for (const def of resources) {
      const type = objectType(def);
      const c = fixtures[type];
      if (!c) continue;
      describe(type, () => {
        const m = new ModelRun(t, type, listPath(def), c);
        beforeAll(() => m.prepare());
        readContract(m);
        writeContract(m);
        garbageContract(m);
        csvContract(m);
        permissionsContract(m);
        treeContract(m);
        massAssignmentContract(m);
      });
    }

    describe('filters over every model', () => filterContract(t, across.map(objectType)));
    describe('no leaks through any read path, over every model', () => leakContract(t, across));
    describe('deletes that cascade stay in scope, over every cascade', () => cascadeContract(t, across, fixtures));
  });

  (enabled ? describe : describe.skip)(`models exempt from view permissions [${kind}]`, () => {
    let app: TestApp | undefined;
    beforeAll(async () => {
      app = await startApp(kind, { ...opts, env: { ...opts.env, EXEMPT_VIEW_PERMISSIONS: '*' } });
    });
    afterAll(async () => {
      await app?.close();
    });
    it('are readable without a token, but for the models that never are', async () => {
      for (const def of resources) {
        const type = objectType(def);
        const res = await app!.get(listPath(def), null);
        if (fixtures[type]?.neverExempt) {
          expect({ type, status: res.status, body: res.body }).toEqual({ type, status: 403, body: { detail: 'Authentication credentials were not provided.' } });
        } else {
          expect({ type, status: res.status }).toEqual({ type, status: 200 });
          if (!def.readOnly) expect({ type, write: (await app!.post(listPath(def), {}, null)).status }).toEqual({ type, write: 403 });
        }
      }
    });
  });
}
