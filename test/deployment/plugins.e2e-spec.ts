import { loadSettings } from '../../src/config/settings';
import { createApp } from '../../src/bootstrap';
import { eachDatabase, startApp, TestApp } from '../../src/core/testing/harness';
import { ResourceRegistry } from '../../src/core/resource/registry';
import { compareSchema, describeDiff } from '../../src/database/schema/compare';
import { readSchema } from '../../src/database/schema/introspect';
import { localPath } from '../../src/core/testing/repo-root';

/**
 * Plugins (deployment issue): PLUGINS loads the example plugin (plugins/example); its model is
 * served under /api/plugins/<base_url>/, its migration runs with netkeel's, and /api/plugins/,
 * /api/apps/ and /api/status/ say it is installed, in the shapes of Nautobot 2.x.
 * (test/deployment/plugin-contract.e2e-spec.ts runs the model contract over its model.)
 */
const PLUGINS = localPath(__dirname, '../../plugins/example');
const VERSION = localPath(__dirname, '../../src/version');
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const LIST = '/api/plugins/maintenance/maintenance-windows/';

eachDatabase(
  'the example plugin',
  (t) => {
    let location: { id: string; url: string };
    beforeAll(async () => {
      const type = (await t().post('/api/dcim/location-types/', { name: 'Plugin test type' }).expect(201)).body;
      location = (await t().post('/api/dcim/locations/', { name: 'Plugin test site', location_type: type.id, status: 'Active' }).expect(201)).body;
    });

    it('creates its tables with its own migration, exactly as its declarations say', async () => {
      const declared = t().app.get(ResourceRegistry).tables();
      expect(declared.some((d) => d.name === 'maintenance_maintenancewindow')).toBe(true);
      expect(describeDiff(compareSchema(declared, await readSchema(t().db), t().db.dialect.name))).toEqual([]);
    });

    it('lists the installed plugins as Nautobot 2.x does', async () => {
      const plugins = (await t().get('/api/plugins/').expect(200)).body;
      expect(Object.keys(plugins)).toEqual(['installed-plugins', 'maintenance']);
      expect(plugins['installed-plugins']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/plugins\/installed-plugins\/$/);
      expect(plugins.maintenance).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/plugins\/maintenance\/$/);
      const apps = (await t().get('/api/apps/').expect(200)).body;
      expect(Object.keys(apps)).toEqual(['installed-apps', 'maintenance']);
      expect(apps['installed-apps']).toMatch(/\/api\/apps\/installed-apps\/$/);
      const installed = {
        name: 'Maintenance windows',
        package: 'netkeel-example-maintenance',
        author: 'netkeel',
        author_email: 'netkeel@example.org',
        description: 'Planned maintenance windows at locations (the netkeel example plugin).',
        version: '1.0.0',
        home_url: null,
        config_url: null,
        docs_url: null,
      };
      expect((await t().get('/api/plugins/installed-plugins/').expect(200)).body).toEqual([installed]);
      expect((await t().get('/api/apps/installed-apps/').expect(200)).body).toEqual([installed]);
      const status = (await t().get('/api/status/').expect(200)).body;
      expect(status.plugins).toEqual({ 'netkeel-example-maintenance': '1.0.0' });
      expect(status['nautobot-apps']).toEqual({ 'netkeel-example-maintenance': '1.0.0' });
    });

    it('shows what is installed to staff only (as the reference\'s IsAdminUser), and the roots to any user', async () => {
      const token = await t().userWith('plugin-reader', [{ types: ['dcim.location'], actions: ['view'] }]);
      expect((await t().get('/api/plugins/installed-plugins/', token).expect(403)).body).toEqual({ detail: 'You do not have permission to perform this action.' });
      await t().get('/api/apps/installed-apps/', token).expect(403);
      await t().get('/api/plugins/', token).expect(200);
      await t().get('/api/plugins/', null).expect(403);
      await t().get('/api/plugins/installed-plugins/', null).expect(403);
    });

    it('serves its models under /api/plugins/<base_url>/ only', async () => {
      const root = (await t().get('/api/plugins/maintenance/').expect(200)).body;
      expect(root).toEqual({ 'maintenance-windows': expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/plugins\/maintenance\/maintenance-windows\/$/) });
      await t().get('/api/plugins/nothing/').expect(404);
      await t().get('/api/maintenance/').expect(404);
      await t().get('/api/maintenance/maintenance-windows/').expect(404);
      expect(Object.keys((await t().get('/api/').expect(200)).body)).not.toContain('maintenance');
      expect((await t().get('/api/plugins/maintenance').expect(302)).headers.location).toBe('/api/plugins/maintenance/');
    });

    it('creates, reads, annotates and deletes maintenance windows like any model, with its rules', async () => {
      const made = await t().post(LIST, { name: 'Core swap', start_time: '2030-05-01T22:00:00Z', end_time: '2030-05-02T02:00:00Z', location: location.id }).expect(201);
      const w = made.body;
      expect(w).toMatchObject({
        object_type: 'maintenance.maintenancewindow',
        display: 'Core swap',
        name: 'Core swap',
        status: { value: 'scheduled', label: 'Scheduled' },
        location: { id: location.id, object_type: 'dcim.location', url: location.url },
        notes_url: `${w.url}notes/`,
      });
      expect(w.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${LIST}${w.id}/$`));
      const deep = (await t().get(`${LIST}${w.id}/?depth=1`).expect(200)).body;
      expect(deep.location.name).toBe('Plugin test site');
      await t().post(`${LIST}${w.id}/notes/`, { note: 'Change approved' }).expect(201);
      const notes = (await t().get(`${LIST}${w.id}/notes/`).expect(200)).body;
      expect(notes.results.map((n: { note: string }) => n.note)).toEqual(['Change approved']);
      expect(notes.results[0].assigned_object_type).toBe('maintenance.maintenancewindow');
      const backwards = await t().patch(`${LIST}${w.id}/`, { end_time: '2030-04-30T00:00:00Z' }).expect(400);
      expect(backwards.body).toEqual({ end_time: ['The end must be after the start.'] });
      expect((await t().get(`${LIST}?location=Plugin test site&status=scheduled`).expect(200)).body.count).toBe(1);
      const csv = await t().get(`${LIST}?format=csv`).expect(200);
      expect(csv.text.split('\n')[0]).toContain('start_time');
      const doc = JSON.parse((await t().get('/api/swagger.json').expect(200)).text);
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([LIST, `${LIST}{id}/`]));
      // its windows go with their location
      const other = (await t().post('/api/dcim/locations/', { name: 'Plugin doomed site', location_type: (await t().get(`/api/dcim/locations/${location.id}/`).expect(200)).body.location_type.id, status: 'Active' }).expect(201)).body;
      const doomed = (await t().post(LIST, { name: 'Doomed', start_time: '2030-01-01T00:00:00Z', end_time: '2030-01-01T01:00:00Z', location: other.id }).expect(201)).body;
      await t().del(`/api/dcim/locations/${other.id}/`).expect(204);
      await t().get(`${LIST}${doomed.id}/`).expect(404);
      await t().del(`${LIST}${w.id}/`).expect(204);
    });
  },
  { env: { PLUGINS } },
);

describe('without plugins', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(() => t?.close());

  it('lists none, and serves no plugin route', async () => {
    expect(Object.keys((await t.get('/api/plugins/').expect(200)).body)).toEqual(['installed-plugins']);
    expect((await t.get('/api/apps/installed-apps/').expect(200)).body).toEqual([]);
    expect((await t.get('/api/status/').expect(200)).body.plugins).toEqual({});
    await t.get('/api/plugins/maintenance/').expect(404);
    await t.get(LIST).expect(404);
  });
});

describe('PLUGINS that cannot be loaded', () => {
  const start = (plugins: string) => createApp({ settings: loadSettings({ PLUGINS: plugins, DATA_DIR: 'memory://', LOG_LEVEL: 'error' }) }, 'error');

  it('stops the start with a message naming the entry', async () => {
    await expect(start('./plugins/no-such-plugin')).rejects.toThrow(/^PLUGINS: \.\/plugins\/no-such-plugin: no such file or directory/);
    await expect(start('no-such-netkeel-plugin-package')).rejects.toThrow(/^PLUGINS: no-such-netkeel-plugin-package could not be loaded: /);
    // a module that is not a plugin
    await expect(start(VERSION)).rejects.toThrow(new RegExp(`^PLUGINS: ${escaped(VERSION)} exports no plugin`));
    await expect(start(`${PLUGINS},${PLUGINS}`)).rejects.toThrow(new RegExp(`^PLUGINS: ${escaped(PLUGINS)}: another plugin already serves /api/plugins/maintenance/`));
  });
});
