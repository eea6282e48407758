import { randomUUID } from 'node:crypto';
import { eachDatabase } from '../../src/core/testing/harness';
import { objectType } from '../../src/core/resource/definition';
import { ResourceRegistry } from '../../src/core/resource/registry';
import { DEFAULT_STATUSES, defaultRolesOf, defaultStatusesOf, KNOWN_ROLES, OTHER_STATUSES } from '../../src/modules/extras/extras.bootstrap';
import { IP_ADDRESS_ROLES } from '../../src/modules/ipam/resources/ip-address.resource';

eachDatabase('API conventions', (t) => {
  let campus: any;
  let building: any;
  let hq: any;

  beforeAll(async () => {
    campus = (await t().post('/api/dcim/location-types/', { name: 'Campus', content_types: ['dcim.location'] }).expect(201)).body;
    building = (await t().post('/api/dcim/location-types/', { name: 'Building', parent: campus.id }).expect(201)).body;
    hq = (await t().post('/api/dcim/locations/', { name: 'HQ', location_type: campus.id, status: 'Active' }).expect(201)).body;
  });

  describe('versioning', () => {
    it('defaults to 2.4 and honours the Accept header and api_version', async () => {
      expect((await t().get('/api/extras/statuses/').expect(200)).headers['api-version']).toBe('2.4');
      expect((await t().get('/api/extras/statuses/').set('Accept', 'application/json; version=2.1').expect(200)).headers['api-version']).toBe('2.1');
      expect((await t().get('/api/extras/statuses/?api_version=2.2').expect(200)).headers['api-version']).toBe('2.2');
      expect((await t().get('/api/extras/statuses/?api_version=2.2').set('Accept', 'application/json; version=2.2').expect(200)).headers['api-version']).toBe('2.2');
    });

    it('answers unsupported and conflicting versions like the reference', async () => {
      const h = await t().get('/api/extras/statuses/').set('Accept', 'application/json; version=0.0').expect(406);
      expect(h.body).toEqual({ detail: 'Invalid version "0.0" in "Accept" header. Supported versions are: 2.0, 2.1, 2.2, 2.3, 2.4' });
      const q = await t().get('/api/extras/statuses/?api_version=1.3').expect(404);
      expect(q.body).toEqual({ detail: 'Invalid version "1.3" in query parameter. Supported versions are: 2.0, 2.1, 2.2, 2.3, 2.4' });
      const m = await t().get('/api/extras/statuses/?api_version=2.3').set('Accept', 'application/json; version=2.2').expect(400);
      expect(m.body).toEqual({ detail: 'Version mismatch between "Accept" header and query parameter.' });
    });

    it('puts API-Version on 403 responses too', async () => {
      const res = await t().get('/api/dcim/locations/', null).expect(403);
      expect(res.headers['api-version']).toBe('2.4');
    });
  });

  describe('root, app roots, status, docs', () => {
    it('lists apps alphabetically with absolute URLs', async () => {
      const res = await t().get('/api/').expect(200);
      const keys = Object.keys(res.body);
      expect(keys).toEqual([...keys].sort());
      expect(res.body.dcim).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/dcim\/$/);
      const dcim = await t().get('/api/dcim/').expect(200);
      const models = Object.keys(dcim.body);
      expect(models).toEqual([...models].sort());
      expect(models).toEqual(expect.arrayContaining(['location-types', 'locations', 'manufacturers', 'platforms', 'power-feeds', 'power-panels', 'rack-groups', 'rack-reservations', 'racks']));
      expect(dcim.body.locations).toMatch(/\/api\/dcim\/locations\/$/);
      await t().get('/api/', null).expect(403);
    });

    it('reports versions on /api/status/', async () => {
      const res = await t().get('/api/status/').expect(200);
      expect(res.body['nautobot-version']).toBe('2.4.0');
      expect(res.body['netkeel-version']).toMatch(/^\d+\.\d+\.\d+/);
    });

    it('serves Swagger UI and an OpenAPI document derived from the definitions', async () => {
      const ui = await t().http.get('/api/docs/').expect(200);
      expect(ui.text).toMatch(/swagger/i);
      const doc = await t().http.get('/api/swagger.json').expect(200);
      expect(doc.body.openapi).toMatch(/^3\./);
      expect(doc.body.paths['/api/dcim/locations/'].get).toBeDefined();
      expect(doc.body.paths['/api/dcim/locations/{id}/'].patch).toBeDefined();
      expect(doc.body.components.schemas.Location.properties.tree_depth).toBeDefined();
      expect(doc.body.components.schemas.LocationRequest.required).toEqual(expect.arrayContaining(['name', 'location_type', 'status']));
    });

    it('answers unknown API paths with {"detail": "Not found."}', async () => {
      const res = await t().get('/api/dcim/no-such-model/').expect(404);
      expect(res.body).toEqual({ detail: 'Not found.' });
      expect((await t().get('/api/nope/').expect(404)).body).toEqual({ detail: 'Not found.' });
    });
  });

    it('answers HEAD as GET without a body, and a method no model URL takes with 404 before authentication', async () => {
      for (const path of ['/api/dcim/locations/', `/api/dcim/locations/${hq.id}/`]) {
        const [get, head] = [await t().get(path).expect(200), await t().http.head(path).set('Authorization', `Token ${t().token}`).expect(200)];
        expect({ path, allow: head.headers.allow, type: head.headers['content-type'], body: head.text ?? '' }).toEqual({ path, allow: get.headers.allow, type: get.headers['content-type'], body: '' });
        expect((await t().http.head(path).expect(403)).text ?? '').toBe('');
        for (const token of [t().token, null]) {
          const trace = await (token ? t().http.trace(path).set('Authorization', `Token ${token}`) : t().http.trace(path));
          expect({ path, token, status: trace.status, body: trace.body }).toEqual({ path, token, status: 404, body: { detail: 'Not found.' } });
        }
      }
    });

  describe('content negotiation and errors', () => {
    it('refuses an Accept it cannot satisfy with 406', async () => {
      const res = await t().get('/api/extras/statuses/').set('Accept', 'application/xml').expect(406);
      expect(res.body).toEqual({ detail: 'Could not satisfy the request Accept header.' });
    });

    it('answers a body over the size limit with 413', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(11 * 1024 * 1024) });
      const res = await t().http.post('/api/extras/tags/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'application/json').send(big);
      expect(res.status).toBe(413);
    });

    it('protects objects others depend on with 409 naming the dependents', async () => {
      const res = await t().del(`/api/dcim/location-types/${campus.id}/`).expect(409);
      expect(res.body.detail).toMatch(/^Unable to delete object\. \d+ dependent objects were found: /);
      expect(res.body.detail).toContain(hq.id);
      await t().get(`/api/dcim/location-types/${campus.id}/`).expect(200);
    });
  });

  describe('related objects on write', () => {
    it('accept a UUID, a URL, an attribute object (with __ paths, display keys dropped) or a natural key', async () => {
      const forms = [hq.id, hq.url, { name: 'HQ', display: 'ignored', url: undefined }, { name: 'HQ', location_type__name: 'Campus' }, 'HQ'];
      for (const [i, parent] of forms.entries()) {
        const res = await t().post('/api/dcim/locations/', { name: `B${i}`, location_type: building.id, parent, status: 'Active' });
        expect(res.status).toBe(201);
        expect(res.body.parent.id).toBe(hq.id);
      }
      const byNested = await t().post('/api/dcim/locations/', { name: 'Bn', location_type: { name: 'Building' }, parent: { id: hq.id, object_type: 'dcim.location', url: hq.url }, status: { name: 'Active' } }).expect(201);
      expect(byNested.body.location_type.id).toBe(building.id);
    });

    it('name the field when zero or several objects match', async () => {
      const none = await t().post('/api/dcim/locations/', { name: 'X', location_type: campus.id, status: 'Nope' }).expect(400);
      expect(none.body).toEqual({ status: ["Related object not found using provided composite-key: Nope"] });
      const id = randomUUID();
      const byId = await t().post('/api/dcim/locations/', { name: 'X', location_type: id, status: 'Active' }).expect(400);
      expect(byId.body).toEqual({ location_type: [`Related object not found using the provided attributes: {'pk': UUID('${id}')}`] });
      const attrs = await t().post('/api/dcim/locations/', { name: 'X', location_type: { name: 'Nowhere' }, status: 'Active' }).expect(400);
      expect(attrs.body).toEqual({ location_type: ["Related object not found using the provided attributes: {'name': 'Nowhere'}"] });
      const many = await t().post('/api/dcim/locations/', { name: 'X', location_type: campus.id, status: { color: '4caf50' } }).expect(400);
      expect(many.body.status[0]).toMatch(/^Multiple objects match the provided attributes: /);
      const junk = await t().post('/api/dcim/locations/', { name: 'X', location_type: 42, status: 'Active' }).expect(400);
      expect(junk.body.location_type[0]).toMatch(/^Related objects must be referenced by ID or by dictionary of attributes/);
    });

    it('only accept a status enabled for the model', async () => {
      const st = (await t().post('/api/extras/statuses/', { name: 'Nowhere yet', content_types: [] }).expect(201)).body;
      const res = await t().post('/api/dcim/locations/', { name: 'Y', location_type: campus.id, status: st.id }).expect(400);
      expect(res.body.status[0]).toMatch(/^Related object not found/);
    });

    it('start with each model default statuses enabled for it, as the reference defaults them', async () => {
      const withStatus = t().app.get(ResourceRegistry).all().filter((d) => d.fields.status?.kind === 'fk');
      expect(withStatus.map((d) => objectType(d))).toEqual(expect.arrayContaining(['dcim.location', 'dcim.rack', 'dcim.powerfeed', 'dcim.device', 'ipam.prefix', 'ipam.ipaddress', 'ipam.vlan']));
      const names = [...DEFAULT_STATUSES, ...OTHER_STATUSES].map(([n]) => n);
      const enabled = new Map<string, string[]>();
      for (const name of names) {
        const [st] = (await t().get(`/api/extras/statuses/?name=${name}`).expect(200)).body.results;
        for (const type of st.content_types) enabled.set(type, [...(enabled.get(type) ?? []), name]);
      }
      for (const d of withStatus) expect({ type: objectType(d), names: (enabled.get(objectType(d)) ?? []).sort() }).toEqual({ type: objectType(d), names: [...defaultStatusesOf(d)].sort() });
      expect(enabled.get('dcim.rack')?.sort()).toEqual(['Active', 'Available', 'Deprecated', 'Planned', 'Reserved']);
      expect(enabled.get('dcim.powerfeed')?.sort()).toEqual(['Active', 'Failed', 'Offline', 'Planned']);
      expect(enabled.get('dcim.device')?.sort()).toEqual(['Active', 'Decommissioning', 'Failed', 'Inventory', 'Offline', 'Planned', 'Staged']);
      expect(enabled.get('dcim.interface')?.sort()).toEqual(['Active', 'Decommissioning', 'Failed', 'Maintenance', 'Planned']);
      expect(enabled.get('dcim.cable')?.sort()).toEqual(['Connected', 'Decommissioning', 'Planned']);
      expect(enabled.get('dcim.location')?.sort()).toEqual(['Active', 'Available', 'Decommissioning', 'Deprecated', 'Planned', 'Reserved', 'Retired', 'Staged']);
    });

    it('start with the reference default roles: the IP address roles, with their colours, enabled for IP addresses only (and the contact association roles for those)', async () => {
      const withRoles = t().app.get(ResourceRegistry).all().filter((d) => defaultRolesOf(d).length);
      expect(withRoles.map((d) => objectType(d))).toEqual(['extras.contactassociation', 'ipam.ipaddress']);
      const contact = (await t().get('/api/extras/roles/?name=Administrative').expect(200)).body.results;
      expect(contact.map((r: { content_types: string[] }) => r.content_types)).toEqual([['extras.contactassociation']]);
      const seeded = new Map(KNOWN_ROLES);
      for (const name of IP_ADDRESS_ROLES) {
        const { results } = (await t().get(`/api/extras/roles/?name=${name}`).expect(200)).body;
        expect(results.map((r: { name: string; color: string; content_types: string[]; weight: unknown }) => [r.name, r.color, r.content_types, r.weight])).toEqual([[name, seeded.get(name), ['ipam.ipaddress'], null]]);
      }
      const ns = (await t().get('/api/ipam/namespaces/?name=Global').expect(200)).body.results[0];
      await t().post('/api/ipam/prefixes/', { prefix: '198.51.100.0/24', namespace: ns.id, status: 'Active' }).expect(201);
      const ip = (await t().post('/api/ipam/ip-addresses/', { address: '198.51.100.1/32', namespace: ns.id, status: 'Active', role: 'Loopback' }).expect(201)).body;
      expect((await t().get(`/api/ipam/ip-addresses/${ip.id}/?depth=1`).expect(200)).body.role.name).toBe('Loopback');
      const wrongModel = await t().post('/api/ipam/prefixes/', { prefix: '198.51.101.0/24', namespace: ns.id, status: 'Active', role: 'Loopback' }).expect(400);
      expect(wrongModel.body.role[0]).toMatch(/^Related object not found/);
    });

    it('only accept a role enabled for the model', async () => {
      const role = (await t().post('/api/extras/roles/', { name: 'Prefixes only', content_types: ['ipam.prefix'] }).expect(201)).body;
      const res = await t().post('/api/ipam/vlans/', { vid: 42, name: 'role-test', status: 'Active', role: role.id }).expect(400);
      expect(res.body.role[0]).toMatch(/^Related object not found/);
      await t().patch(`/api/extras/roles/${role.id}/`, { content_types: ['ipam.prefix', 'ipam.vlan'] }).expect(200);
      await t().post('/api/ipam/vlans/', { vid: 42, name: 'role-test', status: 'Active', role: role.id }).expect(201);
    });
  });

  describe('choices and fields', () => {
    it('reads choice fields as {value, label} and accepts the value or that object', async () => {
      const opts = await t().options('/api/dcim/location-types/').expect(200);
      expect(opts.body.actions.POST.content_types.choices).toEqual(expect.arrayContaining([{ value: 'dcim.location', display: 'dcim | location' }]));
      expect(opts.body.actions.POST.name).toMatchObject({ type: 'string', required: true, max_length: 100 });
    });

    it('validates scalar fields with the reference messages', async () => {
      const res = await t().post('/api/dcim/locations/', { name: 'Z', location_type: campus.id, status: 'Active', asn: 'many', latitude: '1.1234567', time_zone: 'Mars/Olympus', contact_email: 'nope' }).expect(400);
      expect(res.body.asn).toEqual(['A valid integer is required.']);
      expect(res.body.latitude).toEqual(['Ensure that there are no more than 6 decimal places.']);
      expect(res.body.time_zone).toBeDefined();
      expect(res.body.contact_email).toEqual(['Enter a valid email address.']);
      const missing = await t().post('/api/dcim/locations/', {}).expect(400);
      expect(missing.body).toEqual({ name: ['This field is required.'], location_type: ['This field is required.'], status: ['This field is required.'] });
    });
  });

  describe('pagination limits', () => {
    it('clamps limit to MAX_PAGE_SIZE and treats limit=0 as a maximum page', async () => {
      const res = await t().get('/api/extras/statuses/?limit=5000').expect(200);
      expect(res.body.results.length).toBeLessThanOrEqual(1000);
      const zero = await t().get('/api/extras/statuses/?limit=0').expect(200);
      expect(zero.body.results.length).toBe(zero.body.count);
    });
  });
});

eachDatabase(
  'unlimited page size',
  (t) => {
    it('returns everything for limit=0 when MAX_PAGE_SIZE is 0, with no links', async () => {
      const res = await t().get('/api/extras/statuses/?limit=0').expect(200);
      expect(res.body.results.length).toBe(res.body.count);
      expect(res.body.next).toBeNull();
      expect(res.body.previous).toBeNull();
    });
  },
  { env: { MAX_PAGE_SIZE: '0', PAGINATE_COUNT: '2' } },
);
