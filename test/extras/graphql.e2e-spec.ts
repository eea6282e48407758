import { eachDatabase } from '../../src/core/testing/harness';

/**
 * `/api/graphql/` as the Ansible collection's GraphQL inventory, its query_graphql module and
 * pynautobot's `nb.graphql.query()` use it: POST `{query, variables}` with a token, the
 * reference's field names (`devices`, `primary_ip4 { host }`, `platform { napalm_driver }`,
 * `tags { name }`, `config_context`, `cf_<key>`), filters as the REST query string means them,
 * permission scoping (a hidden object is absent, a hidden related object null), the depth, field
 * and object limits, and the statements a nested query costs.
 */
eachDatabase(
  'graphql',
  (t) => {
    const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
    const gql = async (query: string, variables?: object, token?: string) => t().post('/api/graphql/', { query, variables }, token);
    const data = async (query: string, variables?: object, token?: string) => {
      const res = await gql(query, variables, token);
      expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
      return res.body.data;
    };
    let site: any;
    let other: any;
    let role: any;
    let type: any;
    let platform: any;
    let gold: any;
    let devices: any[];
    let v4: any;

    beforeAll(async () => {
      const regionType = await post('/api/dcim/location-types/', { name: 'Region', content_types: [] });
      const siteType = await post('/api/dcim/location-types/', { name: 'Site', parent: regionType.id, content_types: ['dcim.device'] });
      const region = await post('/api/dcim/locations/', { name: 'Europe', location_type: regionType.id, status: 'Active' });
      site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, parent: region.id, status: 'Active' });
      other = await post('/api/dcim/locations/', { name: 'NYC1', location_type: siteType.id, parent: region.id, status: 'Active' });
      role = await post('/api/extras/roles/', { name: 'leaf', content_types: ['dcim.device'] });
      const maker = await post('/api/dcim/manufacturers/', { name: 'Arista' });
      type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: '7050' });
      platform = await post('/api/dcim/platforms/', { name: 'EOS', napalm_driver: 'eos' });
      gold = await post('/api/extras/tags/', { name: 'gold', content_types: ['dcim.device'] });
      await post('/api/extras/tags/', { name: 'silver', content_types: ['dcim.device'] });
      await post('/api/extras/custom-fields/', { label: 'Rack unit', key: 'rack_unit', type: 'integer', content_types: ['dcim.device'] });
      await post('/api/extras/config-contexts/', { name: 'ntp', data: { ntp: ['192.0.2.123'] }, locations: [site.id] });
      devices = await post(
        '/api/dcim/devices/',
        ['leaf1', 'leaf2', 'leaf3'].map((name, i) => ({
          name,
          device_type: type.id,
          role: role.id,
          status: 'Active',
          location: i === 2 ? other.id : site.id,
          platform: i === 0 ? platform.id : null,
          tags: i === 0 ? [gold.id, { name: 'silver' }] : [],
          custom_fields: { rack_unit: i + 1 },
        })),
      );
      const iface = await post('/api/dcim/interfaces/', { device: devices[0].id, name: 'Management1', type: '1000base-t', status: 'Active' });
      await post('/api/ipam/prefixes/', { prefix: '192.0.2.0/24', status: 'Active' });
      v4 = await post('/api/ipam/ip-addresses/', { address: '192.0.2.10/24', status: 'Active', namespace: 'Global' });
      await post('/api/ipam/ip-address-to-interface/', { ip_address: v4.id, interface: iface.id });
      await t().patch(`/api/dcim/devices/${devices[0].id}/`, { primary_ip4: v4.id }).expect(200);
    });

    it("answers the Ansible GraphQL inventory's query", async () => {
      const query = `query {
        devices { name primary_ip4 { host address } platform { napalm_driver name } location { name } tags { name } config_context status { name } role { name } }
        virtual_machines { name primary_ip4 { host } platform { name } }
      }`;
      const d = await data(query);
      expect(d.virtual_machines).toEqual([]);
      expect(d.devices).toEqual([
        {
          name: 'leaf1',
          primary_ip4: { host: '192.0.2.10', address: '192.0.2.10/24' },
          platform: { napalm_driver: 'eos', name: 'EOS' },
          location: { name: 'AMS1' },
          tags: [{ name: 'gold' }, { name: 'silver' }],
          config_context: { ntp: ['192.0.2.123'] },
          status: { name: 'Active' },
          role: { name: 'leaf' },
        },
        { name: 'leaf2', primary_ip4: null, platform: null, location: { name: 'AMS1' }, tags: [], config_context: { ntp: ['192.0.2.123'] }, status: { name: 'Active' }, role: { name: 'leaf' } },
        { name: 'leaf3', primary_ip4: null, platform: null, location: { name: 'NYC1' }, tags: [], config_context: {}, status: { name: 'Active' }, role: { name: 'leaf' } },
      ]);
    });

    it('filters as the REST query string does, with variables as pynautobot sends them', async () => {
      const names = async (args: string, variables?: object) => (await data(`query ${variables ? '($v: [String])' : ''} { devices(${args}) { name } }`, variables)).devices.map((x: any) => x.name);
      expect(await names('location: "AMS1", role: "leaf"')).toEqual(['leaf1', 'leaf2']);
      expect(await names('location: $v', { v: ['NYC1'] })).toEqual(['leaf3']);
      expect(await names('location: "Europe"')).toEqual(['leaf1', 'leaf2', 'leaf3']);
      expect(await names('name__ire: "^leaf[12]$"')).toEqual(['leaf1', 'leaf2']);
      expect(await names('tag: ["gold"]')).toEqual(['leaf1']);
      expect(await names('cf_rack_unit: "2"')).toEqual(['leaf2']);
      expect(await names('has_primary_ip: true')).toEqual(['leaf1']);
      expect(await names('limit: 1, offset: 1')).toEqual(['leaf2']);
      // A value naming nothing is what the REST API says it is, as a GraphQL error.
      const bad = await gql('{ devices(location: "nowhere") { name } }');
      expect(bad.status).toBe(200);
      expect(bad.body.data).toEqual({ devices: null });
      expect(bad.body.errors[0].message).toContain('location');
      expect(bad.body.errors[0].path).toEqual(['devices']);
    });

    it('reads single objects, custom fields, nested lists with filters and reverse relations', async () => {
      const d = await data(`query ($id: ID!) { device(id: $id) { name cf_rack_unit _custom_field_data interfaces(name: "Management1") { name type ip_addresses { address } } location { devices { name } } } }`, {
        id: devices[0].id,
      });
      expect(d.device).toEqual({
        name: 'leaf1',
        cf_rack_unit: 1,
        _custom_field_data: { rack_unit: 1 },
        interfaces: [{ name: 'Management1', type: 'A_1000BASE_T', ip_addresses: [{ address: '192.0.2.10/24' }] }],
        location: { devices: [{ name: 'leaf1' }, { name: 'leaf2' }] },
      });
      expect((await data('{ device(id: "00000000-0000-4000-8000-000000000000") { name } }')).device).toBeNull();
    });

    it('scopes every level by object permissions, as REST reads are', async () => {
      const reader = await t().userWith('gql-reader', [
        { types: ['dcim.device'], actions: ['view'], constraints: { name__in: ['leaf1', 'leaf3'] } },
        { types: ['dcim.location'], actions: ['view'], constraints: { name: 'NYC1' } },
        { types: ['extras.tag'], actions: ['view'], constraints: { name: 'silver' } },
      ]);
      const d = await data('{ devices { name location { name } tags { name } platform { name } primary_ip4 { address } } locations { name devices { name } } }', undefined, reader);
      expect(d.devices).toEqual([
        { name: 'leaf1', location: null, tags: [{ name: 'silver' }], platform: null, primary_ip4: null },
        { name: 'leaf3', location: { name: 'NYC1' }, tags: [], platform: null, primary_ip4: null },
      ]);
      expect(d.locations).toEqual([{ name: 'NYC1', devices: [{ name: 'leaf3' }] }]);
      expect((await data(`{ device(id: "${devices[1].id}") { name } }`, undefined, reader)).device).toBeNull();
      // A filter through a hidden object matches nothing, as in the query string.
      const hidden = await gql('{ devices(location: "AMS1") { name } }', undefined, reader);
      expect(hidden.body.data.devices).toBeNull();
      // Anonymous: refused, as the reference's IsAuthenticated.
      await t().post('/api/graphql/', { query: '{ devices { name } }' }, null).expect(403);
    });

    it('refuses queries past the depth and field limits with a clear error, and bad requests with 400', async () => {
      let deep = 'name';
      for (let i = 0; i < 12; i++) deep = `location { ${deep} }`;
      const res = await gql(`{ devices { ${deep} } }`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toMatch(/nested 14 levels deep, more than the 10 allowed/);
      const fragments = ['fragment f0 on DeviceType { name }', ...Array.from({ length: 6 }, (_, i) => `fragment f${i + 1} on DeviceType { ${Array.from({ length: 5 }, (_, j) => `a${j}: location { devices { ...f${i} } }`).join(' ')} }`)];
      const wide = await gql(`{ devices { ...f6 } } ${fragments.join(' ')}`);
      expect(wide.status).toBe(400);
      expect(wide.body.errors.map((e: any) => e.message).join(' ')).toMatch(/more than the 1000 allowed/);
      expect((await gql('{ devices { nope } }')).status).toBe(400);
      expect((await gql('{ devices { name ')).status).toBe(400);
      expect((await t().post('/api/graphql/', { variables: {} }).expect(400)).body).toEqual({ errors: [{ message: 'Must provide query string.' }] });
      const wrongVar = await gql('query ($id: ID!) { device(id: $id) { name } }', {});
      expect(wrongVar.status).toBe(400);
    });

    it('answers GET ?query= and shows the explorer to a browser, from local assets under a strict CSP', async () => {
      const res = await t().get(`/api/graphql/?query=${encodeURIComponent('{ devices(name: "leaf1") { name } }')}`).expect(200);
      expect(res.body).toEqual({ data: { devices: [{ name: 'leaf1' }] } });
      const page = await t().get('/api/graphql/').set('Accept', 'text/html').expect(200);
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.text).not.toMatch(/<script>/);
      const scripts = [...page.text.matchAll(/src="([^"]+)"/g)].map((m) => m[1]);
      expect(scripts).toHaveLength(4);
      for (const s of scripts) {
        const asset = await t().http.get(s);
        expect({ s, status: asset.status, body: asset.status === 200 ? '' : asset.text }).toEqual({ s, status: 200, body: '' });
        expect(asset.headers['content-type']).toContain('javascript');
      }
      await t().http.get('/api/graphql/static/package.json').expect(404);
    });

    it('saves queries checked against the schema, with their declared variables, and runs them as the reference answers', async () => {
      const saved = await post('/api/extras/graphql-queries/', { name: 'by location', query: 'query ($location: [String], $limit: Int = 5) { devices(location: $location, limit: $limit) { name } }' });
      expect(saved).toMatchObject({ name: 'by location', variables: { location: '', limit: 5 }, owner: null, owner_content_type: null, object_type: 'extras.graphqlquery' });
      const run = (id: string, body: object, token?: string) => t().post(`/api/extras/graphql-queries/${id}/run/`, body, token);
      expect((await run(saved.id, { variables: { location: ['NYC1'] } }).expect(200)).body).toEqual({ data: { devices: [{ name: 'leaf3' }] } });
      expect((await run(saved.id, {}).expect(200)).body).toEqual({ data: { devices: [{ name: 'leaf1' }, { name: 'leaf2' }, { name: 'leaf3' }] } });
      expect((await run(saved.id, { variables: { limit: 'x' } }).expect(400)).body.errors[0].message).toContain('$limit');
      expect((await run(saved.id, { variables: [1] }).expect(400)).body).toEqual({ variables: ['Expected a dictionary of items.'] });
      // Checked on save: syntax, fields, limits.
      const refuse = async (query: string) => (await t().post('/api/extras/graphql-queries/', { name: 'bad', query }).expect(400)).body;
      expect(await refuse('{ devices { name ')).toEqual({ query: ['Syntax Error: Expected Name, found <EOF>.'] });
      expect(await refuse('{ devices { nope } }')).toEqual({ query: ['Cannot query field "nope" on type "DeviceType". Did you mean "name" or "role"?'] });
      await t().patch(`/api/extras/graphql-queries/${saved.id}/`, { query: '{ locations { name } }' }).expect(200);
      expect((await t().get(`/api/extras/graphql-queries/${saved.id}/`).expect(200)).body.variables).toEqual({});
      // Run as the requester: scoped; a reader who may not view the saved query gets 403/404.
      const reader = await t().userWith('gql-runner', [
        { types: ['extras.graphqlquery'], actions: ['view'] },
        { types: ['dcim.location'], actions: ['view'], constraints: { name: 'NYC1' } },
      ]);
      expect((await run(saved.id, {}, reader).expect(200)).body).toEqual({ data: { locations: [{ name: 'NYC1' }] } });
      const stranger = await t().userWith('gql-stranger', [{ types: ['dcim.location'], actions: ['view'] }]);
      await run(saved.id, {}, stranger).expect(403);
      expect((await t().get('/api/extras/graphql-queries/?q=locations').expect(200)).body.count).toBe(1);
    });

    it('costs one statement per related model and relation per nesting level, whatever the number of objects', async () => {
      const query = '{ devices(role: "leaf") { name location { name parent { name } } tags { name } platform { name } interfaces { name ip_addresses { address } } config_context cf_rack_unit display } }';
      await data(query);
      const before = await t().countStatements(() => data(query));
      const more = await post(
        '/api/dcim/devices/',
        Array.from({ length: 20 }, (_, i) => ({ name: `bulk${i}`, device_type: type.id, role: role.id, status: 'Active', location: i % 2 ? site.id : other.id, tags: [gold.id] })),
      );
      let seen: any;
      const after = await t().countStatements(async () => (seen = await data(query)));
      expect(seen.devices).toHaveLength(23);
      expect(after).toBe(before);
      await t().del('/api/dcim/devices/', more.map((d: any) => ({ id: d.id }))).expect(204);
    });

    it('stops a query that would load more objects than GRAPHQL_MAX_OBJECTS with a clear error', async () => {
      const aliases = Array.from({ length: 70 }, (_, i) => `a${i}: devices { name }`).join(' ');
      const res = await gql(`{ ${aliases} }`);
      expect(res.status).toBe(200);
      expect(res.body.errors[0].message).toBe('The query asks for more than 200 objects (GRAPHQL_MAX_OBJECTS); narrow it with filters or limit.');
    });
  },
  { env: { CREDENTIAL_CACHE: 'false', GRAPHQL_MAX_OBJECTS: '200' } },
);
