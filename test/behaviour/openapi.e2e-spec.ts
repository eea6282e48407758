import { load } from 'js-yaml';
import { listPath, objectType } from '../../src/core/resource/definition';
import { ResourceRegistry } from '../../src/core/resource/registry';
import { startApp, TestApp } from '../../src/core/testing/harness';

type Obj = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Every operation of a document: path, method, operation. */
const operations = (doc: Obj) => Object.entries(doc.paths as Record<string, Obj>).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m] as Obj })));

/**
 * The API's documentation: the OpenAPI document (names, paths, tags, operation ids, what
 * differs between API versions) and the pages that show it. The document is the same on every
 * database: these run on PGlite (openapi-examples.e2e-spec.ts tries its writes on each).
 */
describe('the OpenAPI document and the documentation pages', () => {
  let t: TestApp;
  const docs: Record<string, Obj> = {};
  const doc = async (version: string) => (docs[version] ??= (await t.http.get(`/api/swagger.json?api_version=${version}`).expect(200)).body);
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(() => t?.close());

  it('lists every path with its trailing slash, as the API serves it', async () => {
    const d = await doc('2.4');
    expect(Object.keys(d.paths).filter((p) => !p.endsWith('/'))).toEqual([]);
    for (const p of ['/api/status/', '/api/ipam/prefixes/{id}/available-ips/', '/api/ipam/prefixes/{id}/available-prefixes/', '/api/dcim/locations/{id}/notes/', '/api/identity/external-identities/{id}/history/', '/login/', '/logout/']) {
      expect(d.paths).toHaveProperty([p]);
    }
    // A documented path answers itself, not a redirect to it.
    expect((await t.get('/api/status/').expect(200)).body).toHaveProperty(['netkeel-version']);
    // The navigation roots and the pages' own files are not operations.
    expect(Object.keys(d.paths).filter((p) => p === '/api/' || p === '/api/dcim/' || p.includes('/static/') || p.includes('swagger') || p.includes('/docs/'))).toEqual([]);
  });

  it("names the models' schemas as Nautobot's serializers", async () => {
    const d = await doc('2.4');
    const schemas = d.components.schemas as Obj;
    for (const name of ['LocationType', 'IPAddress', 'VLANGroup', 'CustomField', 'VMInterface', 'ObjectPermission', 'PaginatedLocationTypeList', 'LocationTypeRequest', 'PatchedLocationTypeRequest', 'BulkWritableLocationTypeRequest', 'PatchedBulkWritableLocationTypeRequest', 'WritableIPAddressRequest', 'BulkOperationRequest']) {
      expect(schemas).toHaveProperty([name]);
    }
    for (const name of ['Locationtype', 'Ipaddress', 'Customfield', 'Vlangroup']) expect(schemas).not.toHaveProperty([name]);
    // Every model by its class name, its representation's object_type naming it.
    for (const def of t.app.get(ResourceRegistry).all()) expect(schemas[def.className]?.properties?.object_type?.example).toBe(objectType(def));
    // A list's PUT and PATCH name each object by its id.
    expect(schemas.BulkWritableLocationTypeRequest.required).toEqual(expect.arrayContaining(['id', 'name']));
    expect(schemas.PatchedBulkWritableLocationTypeRequest.required).toEqual(['id']);
    expect(schemas.PatchedLocationTypeRequest.required).toBeUndefined();
  });

  it('tags each operation with its app and gives it a unique Nautobot-style operation id', async () => {
    const d = await doc('2.4');
    const ops = operations(d);
    const apps = t.app.get(ResourceRegistry).apps();
    for (const { path, op } of ops) {
      const segments = path.split('/').filter(Boolean);
      expect({ path, tags: op.tags }).toEqual({ path, tags: [segments[0] === 'api' ? segments[1] : segments[0]] });
      expect(op.operationId).toMatch(/^[a-z0-9]+(_[a-z0-9]+)*$/);
    }
    const tags = new Set(ops.map((o) => o.op.tags[0]));
    for (const app of apps) expect(tags).toContain(app);
    expect([...tags].filter((tag) => tag !== tag.toLowerCase())).toEqual([]);
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const of = (p: string) => Object.fromEntries(METHODS.filter((m) => d.paths[p][m]).map((m) => [m, d.paths[p][m].operationId]));
    expect(of('/api/dcim/locations/')).toEqual({ get: 'dcim_locations_list', post: 'dcim_locations_create', put: 'dcim_locations_bulk_update', patch: 'dcim_locations_bulk_partial_update', delete: 'dcim_locations_bulk_destroy' });
    expect(of('/api/dcim/locations/{id}/')).toEqual({ get: 'dcim_locations_retrieve', put: 'dcim_locations_update', patch: 'dcim_locations_partial_update', delete: 'dcim_locations_destroy' });
    expect(of('/api/ipam/prefixes/{id}/available-ips/')).toEqual({ get: 'ipam_prefixes_available_ips_list', post: 'ipam_prefixes_available_ips_create' });
    expect(of('/api/dcim/locations/{id}/notes/')).toEqual({ get: 'dcim_locations_notes_list', post: 'dcim_locations_notes_create' });
    expect(of('/api/status/')).toEqual({ get: 'status_retrieve' });
    // The operations a model does not offer are not listed (jobs are never created by a client).
    expect(d.paths['/api/extras/jobs/'].post).toBeUndefined();
  });

  it('follows the API version: fields, required fields and filters of 2.0 and 2.1 where they differ', async () => {
    const props = (d: Obj, name: string) => Object.keys(d.components.schemas[name].properties);
    for (const v of ['2.0', '2.1']) {
      const d = await doc(v);
      expect(d.info.version).toMatch(new RegExp(`\\(${v.replace('.', '\\.')}\\)$`));
      for (const model of ['Prefix', 'VLAN']) {
        expect(props(d, model)).toContain('location');
        expect(props(d, model)).not.toContain('locations');
      }
      expect(props(d, 'WritablePrefixRequest')).not.toContain('locations');
      expect(d.components.schemas.WritablePrefixRequest.required).toEqual(expect.arrayContaining(['prefix', 'status', 'location']));
      expect(d.components.schemas.VLANRequest.required).not.toContain('location');
      expect(d.paths['/api/ipam/prefixes/'].get.parameters.map((p: Obj) => p.name)).not.toContain('locations');
    }
    for (const v of ['2.2', '2.4']) {
      const d = await doc(v);
      expect(props(d, 'Prefix')).toContain('locations');
      expect(props(d, 'Prefix')).not.toContain('location');
      // Still written (write-only) from 2.2 on.
      expect(props(d, 'WritablePrefixRequest')).toEqual(expect.arrayContaining(['location', 'locations']));
      expect(d.components.schemas.WritablePrefixRequest.required).not.toContain('location');
      expect(d.paths['/api/ipam/prefixes/'].get.parameters.map((p: Obj) => p.name)).toContain('locations');
    }
    // Job queues came with 2.1.
    const queues = ['job_queues', 'default_job_queue', 'job_queues_override', 'default_job_queue_override'];
    expect(props(await doc('2.0'), 'Job').filter((k) => queues.includes(k))).toEqual([]);
    expect(props(await doc('2.1'), 'Job')).toEqual(expect.arrayContaining(queues));
    // The Accept header's version, as the API takes it.
    const byHeader = await t.http.get('/api/swagger.json').set('Accept', 'application/json; version=2.0').expect(200);
    expect(byHeader.headers['api-version']).toBe('2.0');
    expect(byHeader.body.components.schemas.Prefix.properties).toHaveProperty('location');
    await t.http.get('/api/swagger.json?api_version=1.9').expect(404);
    await t.http.get('/api/swagger.json?api_version=2.0').set('Accept', 'application/json; version=2.1').expect(400);
  });

  it("is what a 2.0 client gets: a prefix created as 2.0's document says reads as it says", async () => {
    const d = await doc('2.0');
    const type = (await t.post('/api/dcim/location-types/', { name: 'Docs site', content_types: ['ipam.prefix'] }).expect(201)).body;
    const site = (await t.post('/api/dcim/locations/', { name: 'Docs site', location_type: type.id, status: 'Active' }).expect(201)).body;
    const body = { prefix: '10.123.0.0/16', status: 'Active', location: site.id };
    expect(Object.keys(body).sort()).toEqual([...d.components.schemas.WritablePrefixRequest.required].sort());
    const made = (await t.post('/api/ipam/prefixes/?api_version=2.0', body).expect(201)).body;
    expect(Object.keys(made).filter((k) => !(k in d.components.schemas.Prefix.properties))).toEqual([]);
    expect(made.location.id).toBe(site.id);
    // Without the location the document requires, the API refuses it too.
    expect((await t.post('/api/ipam/prefixes/?api_version=2.0', { prefix: '10.124.0.0/16', status: 'Active' }).expect(400)).body).toEqual({ location: ['This field is required.'] });
    const now = (await t.get(`/api/ipam/prefixes/${made.id}/`).expect(200)).body;
    const latest = (await doc('2.4')).components.schemas.Prefix.properties;
    expect(Object.keys(now).filter((k) => !(k in latest))).toEqual([]);
  });

  it('serves the document as JSON and YAML, at /api/swagger/ by content negotiation', async () => {
    const json = await t.http.get('/api/swagger.json').expect(200);
    expect(json.headers['content-type']).toMatch(/^application\/vnd\.oai\.openapi\+json/);
    const yaml = await t.http.get('/api/swagger.yaml').expect(200);
    expect(yaml.headers['content-type']).toMatch(/^application\/vnd\.oai\.openapi;/);
    expect(load(yaml.text)).toEqual(JSON.parse(json.text));
    const asked = async (accept: string | null, query = '') => {
      const r = t.http.get(`/api/swagger/${query}`);
      const res = await (accept ? r.set('Accept', accept) : r).expect(200);
      return String(res.headers['content-type']).split(';')[0];
    };
    expect(await asked('application/json')).toBe('application/vnd.oai.openapi+json');
    expect(await asked('application/vnd.oai.openapi+json')).toBe('application/vnd.oai.openapi+json');
    expect(await asked(null)).toBe('application/vnd.oai.openapi');
    expect(await asked('application/yaml')).toBe('application/vnd.oai.openapi');
    expect(await asked(null, '?format=json')).toBe('application/vnd.oai.openapi+json');
    expect(await asked(BROWSER)).toBe('text/html');
    await t.http.get('/api/swagger/?format=xml').expect(404);
    const v20 = await t.http.get('/api/swagger/?api_version=2.0').set('Accept', 'application/json').expect(200);
    expect(JSON.parse(v20.text).info.version).toMatch(/\(2\.0\)$/);
    // The server is this service's root as the client sees it.
    expect(JSON.parse(json.text).servers).toEqual([{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) }]);
    // pynautobot asks the docs page for the document.
    const moved = await t.http.get('/api/docs/?format=openapi&api_version=2.1').expect(301);
    expect(moved.headers.location).toBe('/api/swagger.json?api_version=2.1');
  });

  it('serves Swagger UI and ReDoc of the version asked for, from this origin, with no inline script', async () => {
    for (const [path, accept, version, scripts] of [
      ['/api/docs/?api_version=2.1', BROWSER, '2.1', ['swagger-ui-bundle.js', 'swagger-init.js']],
      ['/api/swagger/', 'text/html; version=2.2', '2.2', ['swagger-ui-bundle.js', 'swagger-init.js']],
      ['/api/redoc/', BROWSER, '2.4', ['redoc.standalone.js', 'redoc-init.js']],
    ] as const) {
      const page = await t.http.get(path).set('Accept', accept).expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toMatch(/script-src 'self';/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(page.text).not.toMatch(/<script>|<script [^>]*>[^<]/);
      expect([...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1])).toEqual(scripts.map((s) => `/api/docs/static/${s}`));
      expect(page.text).toContain(`data-url="/api/swagger.json?api_version=${version}"`);
      for (const s of scripts) {
        const file = await t.http.get(`/api/docs/static/${s}`).expect(200);
        expect(file.headers['content-type']).toMatch(/^application\/javascript/);
        expect(file.headers['cache-control']).toBe('public, max-age=86400');
      }
    }
    // No file is fetched from elsewhere: ReDoc's bundle names no CDN.
    expect((await t.http.get('/api/docs/static/redoc.standalone.js').expect(200)).text).not.toContain('cdn.redoc.ly');
    await t.http.get('/api/docs/static/../../package.json').expect(404);
    await t.http.get('/api/docs/static/nothing.js').expect(404);
  });

  it('lists each model with notes under its own notes path, with the note as the body', async () => {
    const d = await doc('2.4');
    const registry = t.app.get(ResourceRegistry);
    const withNotes = registry.all().filter((def) => def.features.includes('notes'));
    for (const def of withNotes) expect(d.paths).toHaveProperty([`${listPath(def)}{id}/notes/`]);
    const notes = d.paths['/api/dcim/locations/{id}/notes/'];
    expect(notes.post.requestBody.content['application/json'].schema.required).toEqual(['note']);
    expect(notes.get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PaginatedNoteList' });
    expect(Object.keys(d.paths).filter((p) => p.includes('{app}') || p.includes('{model}'))).toEqual([]);
  });
});
