import { listPath, objectType, offers, ResourceDefinition } from '../../resource/definition';
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
import { SHARDS, shardOf } from './shards';


/**
 * The generic API contract (the reference's APIViewTestCases, plus what netkeel promises beyond
 * them) for shard `shard` of the models the app registers (see shardOf; 0: all of them, unsharded),
 * on one server of one database kind: each model's fixture makes its objects, then its sections
 * run, then the filter, leak and cascade contracts run for the shard's models over all the objects
 * the server holds. One server per shard per database, so a model costs its tests, not a server
 * start; the shards are separate suites, so jest's workers run them side by side. The first shard
 * also checks that every registered model has a fixture (and every fixture a model), and
 * anonymous reads under EXEMPT_VIEW_PERMISSIONS for every model. `opts` starts the server
 * otherwise (a plugin's models: `{ env: { PLUGINS: ... } }`), and `crossModels` join the sections
 * over every model without sections of their own.
 */
export function runContracts(kind: Kind, fixtures: Fixtures, resources: ResourceDefinition[], shard: number, opts: StartOptions & { crossModels?: ResourceDefinition[] } = {}): void {
  // Models that join the sections over every model (filters, leaks, cascades) without their own.
  const across = [...resources, ...(opts.crossModels ?? []).filter((d) => !resources.includes(d))];
  const enabled = testDatabases().includes(kind);
  const models = shard === 0 ? resources : shardOf(resources, shard);
  (enabled ? describe : describe.skip)(`model contracts [${kind}, shard ${shard} of ${SHARDS}]`, () => {
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

    if (shard <= 1) it('has a fixture for every registered model, and none for a model that is not registered', () => {
      const registered = t().app.get(ResourceRegistry).all().map(objectType).sort();
      expect({ withoutFixture: registered.filter((type) => !fixtures[type]) }).toEqual({ withoutFixture: [] });
      expect({ notRegistered: Object.keys(fixtures).filter((type) => !registered.includes(type)) }).toEqual({ notRegistered: [] });
    });

    for (const def of models) {
      const type = objectType(def);
      const c = fixtures[type];
      if (!c) continue;
      describe(type, () => {
        const m = new ModelRun(t, type, listPath(def), c, (['create', 'update', 'delete'] as const).filter((w) => offers(def, w)));
        beforeAll(() => m.prepare());
        readContract(m);
        writeContract(m);
        // Garbage that reaches the database meets PostgreSQL's own checks on PGlite as on the
        // PostgreSQL server (one engine): swept on the servers; the hostile-input sweep covers PGlite.
        if (kind !== 'pglite') garbageContract(m);
        csvContract(m);
        permissionsContract(m);
        treeContract(m);
        massAssignmentContract(m);
      });
    }

    // The sections over every model check what the engine's SQL selects. PGlite runs PostgreSQL's
    // own engine on the same SQL text as the PostgreSQL server (no code asks which of the two it
    // is on), so where the run has that server they run there, and on PGlite only without it.
    if (kind !== 'pglite' || !testDatabases().includes('postgres')) {
      describe('filters over every model of the shard', () => filterContract(t, models.map(objectType), across.map(objectType)));
      describe('no leaks through any read path, over every model of the shard', () => leakContract(t, across, models));
      describe('deletes that cascade stay in scope, over every cascade from a model of the shard', () => cascadeContract(t, across, fixtures, models));
    }
  });

  if (shard > 1) return;
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
