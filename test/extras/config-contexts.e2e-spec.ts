import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Config contexts as Nautobot 2.4 renders them: the active contexts matching a device (every
 * assigned dimension; locations and tenant groups with their ancestors) merged by weight then
 * name, its local data on top; `config_context` only with include=config_context (and on write
 * responses); schemas and their messages; the cost of a page.
 */
eachDatabase(
  'config contexts',
  (t) => {
    const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
    const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
    const context = (id: string) => t().get(`/api/dcim/devices/${id}/?include=config_context`).expect(200).then((r) => r.body.config_context);
    let region: any;
    let site: any;
    let other: any;
    let role: any;
    let type: any;
    let platform: any;
    let group: any;
    let subgroup: any;
    let tenant: any;
    let gold: any;
    let silver: any;
    let device: (body: object) => object;
    const contexts: string[] = [];
    const ctx = async (body: object) => {
      const c = await post('/api/extras/config-contexts/', body);
      contexts.push(c.id);
      return c;
    };
    /** Contexts of one test only: removed after it, so the next test's merges stand alone. */
    afterEach(async () => {
      if (contexts.length) await t().del('/api/extras/config-contexts/', contexts.splice(0).map((id) => ({ id }))).expect(204);
    });

    beforeAll(async () => {
      const regionType = await post('/api/dcim/location-types/', { name: 'Region', content_types: [] });
      const siteType = await post('/api/dcim/location-types/', { name: 'Site', parent: regionType.id, content_types: ['dcim.device'] });
      region = await post('/api/dcim/locations/', { name: 'Europe', location_type: regionType.id, status: 'Active' });
      site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, parent: region.id, status: 'Active' });
      const elsewhere = await post('/api/dcim/locations/', { name: 'America', location_type: regionType.id, status: 'Active' });
      other = await post('/api/dcim/locations/', { name: 'NYC1', location_type: siteType.id, parent: elsewhere.id, status: 'Active' });
      role = await post('/api/extras/roles/', { name: 'Router', content_types: ['dcim.device'] });
      const maker = await post('/api/dcim/manufacturers/', { name: 'Juniper' });
      type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'MX204' });
      platform = await post('/api/dcim/platforms/', { name: 'Junos' });
      group = await post('/api/tenancy/tenant-groups/', { name: 'Customers' });
      subgroup = await post('/api/tenancy/tenant-groups/', { name: 'Retail', parent: group.id });
      tenant = await post('/api/tenancy/tenants/', { name: 'Shop', tenant_group: subgroup.id });
      gold = await post('/api/extras/tags/', { name: 'gold', content_types: ['dcim.device'] });
      silver = await post('/api/extras/tags/', { name: 'silver', content_types: ['dcim.device'] });
      device = (body: object) => ({ device_type: type.id, role: role.id, status: 'Active', location: site.id, ...body });
    });

    it('merges the matching contexts by weight, then name, deeply, with the local data on top', async () => {
      const d = await post('/api/dcim/devices/', device({ name: 'r1', local_config_context_data: { ntp: { servers: ['local'] }, local: true } }));
      await ctx({ name: 'b-global', weight: 100, data: { ntp: { servers: ['b'], prefer: 'b' }, dns: 'b', order: 'b' } });
      await ctx({ name: 'a-global', weight: 100, data: { ntp: { servers: ['a'], iburst: true }, order: 'a' } });
      await ctx({ name: 'heavy', weight: 2000, data: { dns: 'heavy' } });
      await ctx({ name: 'light', weight: 10, data: { dns: 'light', syslog: 'light' } });
      // Weight 10 first, then a-global and b-global (same weight: by name), then 2000, then local data.
      expect(await context(d.id)).toEqual({ dns: 'heavy', syslog: 'light', ntp: { servers: ['local'], iburst: true, prefer: 'b' }, order: 'b', local: true });
      // Absent without include, as in the reference.
      expect((await t().get(`/api/dcim/devices/${d.id}/`).expect(200)).body).not.toHaveProperty('config_context');
      // A write's response always carries it.
      const patched = (await t().patch(`/api/dcim/devices/${d.id}/`, { local_config_context_data: null }).expect(200)).body;
      expect(patched.config_context).toEqual({ dns: 'heavy', syslog: 'light', ntp: { servers: ['b'], iburst: true, prefer: 'b' }, order: 'b' });
    });

    it('matches a location and its ancestors, never another branch', async () => {
      const d = await post('/api/dcim/devices/', device({ name: 'r2' }));
      await ctx({ name: 'europe', weight: 1, data: { region: 'eu' }, locations: [region.id] });
      await ctx({ name: 'ams', weight: 2, data: { site: 'ams' }, locations: [site.id] });
      await ctx({ name: 'nyc', weight: 3, data: { site: 'nyc', us: true }, locations: [other.id] });
      expect(await context(d.id)).toEqual({ region: 'eu', site: 'ams' });
      // The device moves: the other branch's contexts follow.
      await t().patch(`/api/dcim/devices/${d.id}/`, { location: other.id }).expect(200);
      expect(await context(d.id)).toEqual({ site: 'nyc', us: true });
    });

    it("applies a context at once to every device when the only location it named is deleted (the database's cascade empties its link)", async () => {
      const d = await post('/api/dcim/devices/', device({ name: 'r-cascade' }));
      const regionType = (await t().get('/api/dcim/location-types/?name=Region').expect(200)).body.results[0];
      const gone = await post('/api/dcim/locations/', { name: 'Atlantis', location_type: regionType.id, status: 'Active' });
      await ctx({ name: 'atlantis', data: { sunk: true }, locations: [gone.id] });
      expect(await context(d.id)).toEqual({});
      await t().del(`/api/dcim/locations/${gone.id}/`).expect(204);
      expect(await context(d.id)).toEqual({ sunk: true });
    });

    it('needs every assigned dimension to match: role, type, platform, tenant, tenant group ancestry', async () => {
      const d = await post('/api/dcim/devices/', device({ name: 'r3', platform: platform.id, tenant: tenant.id }));
      const plain = await post('/api/dcim/devices/', device({ name: 'r4' }));
      await ctx({ name: 'all-of-them', data: { all: true }, roles: [role.id], device_types: [type.id], platforms: [platform.id], tenants: [tenant.id], tenant_groups: [group.id] });
      await ctx({ name: 'group', data: { group: true }, tenant_groups: [subgroup.id] });
      await ctx({ name: 'role-and-site', data: { role: true }, roles: [role.id], locations: [site.id] });
      await ctx({ name: 'role-elsewhere', data: { elsewhere: true }, roles: [role.id], locations: [other.id] });
      expect(await context(d.id)).toEqual({ all: true, group: true, role: true });
      expect(await context(plain.id)).toEqual({ role: true });
    });

    it('matches by any one of the device tags', async () => {
      const d = await post('/api/dcim/devices/', device({ name: 'r5', tags: [gold.id] }));
      const untagged = await post('/api/dcim/devices/', device({ name: 'r6' }));
      await ctx({ name: 'gold-or-silver', data: { tagged: true }, tags: [gold.id, silver.id] });
      await ctx({ name: 'silver', data: { silver: true }, tags: [silver.id] });
      expect(await context(d.id)).toEqual({ tagged: true });
      expect(await context(untagged.id)).toEqual({});
      await t().patch(`/api/dcim/devices/${d.id}/`, { tags: [silver.id] }).expect(200);
      expect(await context(d.id)).toEqual({ tagged: true, silver: true });
    });

    it('answers the queries pynautobot and the Ansible inventory send', async () => {
      const d = await post('/api/dcim/devices/', device({ name: 'inventoried', local_config_context_data: { host: 'own' } }));
      await ctx({ name: 'site-wide', data: { site: 'ams' }, locations: [site.id] });
      // pynautobot: nb.dcim.devices.get(name=..., include="config_context")
      const got = (await t().get('/api/dcim/devices/?name=inventoried&include=config_context').expect(200)).body;
      expect(got.results.map((x: any) => x.config_context)).toEqual([{ site: 'ams', host: 'own' }]);
      // The inventory plugin with config_context: true (every device, depth 1, many-to-many included).
      const inventory = (await t().get('/api/dcim/devices/?limit=0&depth=1&exclude_m2m=False&include=config_context').expect(200)).body;
      const host = inventory.results.find((x: any) => x.id === d.id);
      expect(host.config_context).toEqual({ site: 'ams', host: 'own' });
      expect(host.location.name).toBe('AMS1');
      // The lookup plugin's config-contexts endpoint, filtered.
      expect((await t().get('/api/extras/config-contexts/?location=AMS1&is_active=true').expect(200)).body.results.map((x: any) => x.name)).toEqual(['site-wide']);
    });

    it('renders a virtual machine context through its cluster: the cluster, its group and its location (with ancestors), with local data on top', async () => {
      const clusterType = await post('/api/virtualization/cluster-types/', { name: 'VMware' });
      const clusterGroup = await post('/api/virtualization/cluster-groups/', { name: 'Production' });
      const siteType = (await t().get(`/api/dcim/location-types/?name=Site`).expect(200)).body.results[0];
      await t().patch(`/api/dcim/location-types/${siteType.id}/`, { content_types: ['dcim.device', 'virtualization.cluster'] }).expect(200);
      const cluster = await post('/api/virtualization/clusters/', { name: 'ams-prod', cluster_type: clusterType.id, cluster_group: clusterGroup.id, location: site.id });
      const elsewhere = await post('/api/virtualization/clusters/', { name: 'lab', cluster_type: clusterType.id });
      const vmRole = await post('/api/extras/roles/', { name: 'Web', content_types: ['virtualization.virtualmachine'] });
      const vm = await post('/api/virtualization/virtual-machines/', { name: 'web1', cluster: cluster.id, role: vmRole.id, status: 'Active', local_config_context_data: { local: true } });
      const lab = await post('/api/virtualization/virtual-machines/', { name: 'lab1', cluster: elsewhere.id, status: 'Active' });
      await ctx({ name: 'europe', weight: 100, data: { region: 'eu' }, locations: [region.id] });
      await ctx({ name: 'prod', weight: 200, data: { group: 'prod' }, cluster_groups: [clusterGroup.id] });
      await ctx({ name: 'this-cluster', weight: 300, data: { cluster: 'ams-prod' }, clusters: [cluster.id] });
      await ctx({ name: 'web', weight: 400, data: { role: 'web' }, roles: [vmRole.id] });
      await ctx({ name: 'routers-only', weight: 500, data: { router: true }, device_types: [type.id] });
      const read = async (id: string) => (await t().get(`/api/virtualization/virtual-machines/${id}/?include=config_context`).expect(200)).body.config_context;
      expect(await read(vm.id)).toEqual({ region: 'eu', group: 'prod', cluster: 'ams-prod', role: 'web', local: true });
      expect(await read(lab.id)).toEqual({});
      const filtered = (await t().get(`/api/extras/config-contexts/?cluster_id=${cluster.id}`).expect(200)).body.results.map((c: { name: string }) => c.name);
      expect(filtered).toEqual(['this-cluster']);
      expect((await t().get(`/api/extras/config-contexts/?cluster_group=${clusterGroup.id}`).expect(200)).body.results.map((c: { name: string }) => c.name)).toEqual(['prod']);
    });

    it('matches a device by its redundancy group, and a device in none only by contexts naming no group', async () => {
      const drg = await post('/api/dcim/device-redundancy-groups/', { name: 'core-pair', status: 'Active' });
      const paired = await post('/api/dcim/devices/', device({ name: 'paired1', device_redundancy_group: drg.id, device_redundancy_group_priority: 1 }));
      const single = await post('/api/dcim/devices/', device({ name: 'single1' }));
      await ctx({ name: 'pair', weight: 100, data: { pair: true }, device_redundancy_groups: [drg.id] });
      await ctx({ name: 'all', weight: 50, data: { all: true } });
      expect(await context(paired.id)).toEqual({ all: true, pair: true });
      expect(await context(single.id)).toEqual({ all: true });
      const named = (await t().get(`/api/extras/config-contexts/?device_redundancy_group=${drg.id}`).expect(200)).body.results.map((c: { name: string }) => c.name);
      expect(named).toEqual(['pair']);
    });

    it('ignores inactive contexts', async () => {
      const d = await post('/api/dcim/devices/', device({ name: 'r7' }));
      const c = await ctx({ name: 'switched', data: { on: true } });
      expect(await context(d.id)).toEqual({ on: true });
      await t().patch(`/api/extras/config-contexts/${c.id}/`, { is_active: false }).expect(200);
      expect(await context(d.id)).toEqual({});
    });

    it('renders every matching context to a reader who may view the device but not the contexts, as the reference does', async () => {
      const d = await post('/api/dcim/devices/', device({ name: 'r8' }));
      await ctx({ name: 'hidden', data: { secret: 'shown' }, locations: [region.id] });
      const reader = await t().userWith('device-reader', [{ types: ['dcim.device'], actions: ['view'] }]);
      await t().get('/api/extras/config-contexts/', reader).expect(403);
      const seen = (await t().get(`/api/dcim/devices/${d.id}/?include=config_context`, reader).expect(200)).body;
      expect(seen.config_context).toEqual({ secret: 'shown' });
    });

    it('validates context data and schemas with the reference messages', async () => {
      expect(await refuse('/api/extras/config-contexts/', { name: 'list', data: [1, 2] })).toEqual({ data: ['JSON data must be in object form. Example: {"foo": 123}'] });
      const schema = await post('/api/extras/config-context-schemas/', {
        name: 'NTP',
        data_schema: { type: 'object', properties: { ntp: { type: 'string', format: 'ipv4' }, level: { type: 'integer', minimum: 1 } }, required: ['ntp'], additionalProperties: false },
      });
      const check = (data: object) => refuse('/api/extras/config-contexts/', { name: 'checked', data, config_context_schema: schema.id });
      const failed = 'Validation using the JSON Schema NTP failed.';
      expect(await check({})).toEqual({ data: [failed, "'ntp' is a required property"] });
      expect(await check({ ntp: 5 })).toEqual({ data: [failed, "5 is not of type 'string'"] });
      expect(await check({ ntp: '10.0.0' })).toEqual({ data: [failed, "'10.0.0' is not a 'ipv4'"] });
      expect(await check({ ntp: '10.0.0.1', level: 0 })).toEqual({ data: [failed, '0 is less than the minimum of 1'] });
      expect(await check({ ntp: '10.0.0.1', x: 1, a: 2 })).toEqual({ data: [failed, "Additional properties are not allowed ('a', 'x' were unexpected)"] });
      await ctx({ name: 'checked', data: { ntp: '10.0.0.1' }, config_context_schema: schema.id });
      expect(await refuse('/api/extras/config-context-schemas/', { name: 'bad', data_schema: { type: 'object', properties: { a: { type: 'nonsense' } } } })).toEqual({
        data_schema: ["'nonsense' is not valid under any of the given schemas"],
      });
      expect(await refuse('/api/extras/config-context-schemas/', { name: 'bad', data_schema: { type: 'array' } })).toEqual({
        data_schema: ['Nautobot only supports context data in the form of an object and thus the JSON schema must be of type object and specify a set of properties.'],
      });
      expect((await refuse('/api/extras/config-context-schemas/', { name: 'bad', data_schema: { type: 'object', properties: { a: { pattern: '(a+)+$' } } } })).data_schema).toHaveLength(1);
    });

    it('validates local data: an object, against its schema, and a schema only with data', async () => {
      const schema = await post('/api/extras/config-context-schemas/', { name: 'Syslog', data_schema: { type: 'object', properties: { syslog: { type: 'string' } }, required: ['syslog'] } });
      expect(await refuse('/api/dcim/devices/', device({ name: 'bad', local_config_context_data: ['x'] }))).toEqual({ local_config_context_data: ['JSON data must be in object form. Example: {"foo": 123}'] });
      expect(await refuse('/api/dcim/devices/', device({ name: 'bad', local_config_context_schema: schema.id }))).toEqual({
        local_config_context_schema: ['Local config context data must exist for a schema to be applied.'],
      });
      expect(await refuse('/api/dcim/devices/', device({ name: 'bad', local_config_context_schema: schema.id, local_config_context_data: { syslog: 1 } }))).toEqual({
        local_config_context_data: ['Validation using the JSON Schema Syslog failed.', "1 is not of type 'string'"],
      });
      const d = await post('/api/dcim/devices/', device({ name: 'r9', local_config_context_schema: { name: 'Syslog' }, local_config_context_data: { syslog: 'here' } }));
      expect(d.local_config_context_schema.id).toBe(schema.id);
      expect((await t().get(`/api/dcim/devices/?local_config_context_schema=Syslog`).expect(200)).body.results.map((x: any) => x.name)).toEqual(['r9']);
      expect((await t().get(`/api/dcim/devices/?local_config_context_schema_id=${schema.id}&local_config_context_data=true`).expect(200)).body.count).toBe(1);
      // A schema deleted: the device keeps its data, without a schema.
      await t().del(`/api/extras/config-context-schemas/${schema.id}/`).expect(204);
      expect((await t().get(`/api/dcim/devices/${d.id}/`).expect(200)).body.local_config_context_schema).toBeNull();
    });

    it('filters contexts as the reference does', async () => {
      await ctx({ name: 'f-site', data: { note: 'needle' }, locations: [site.id], roles: [role.id], tags: [gold.id] });
      await ctx({ name: 'f-tenant', data: {}, tenants: [tenant.id], tenant_groups: [group.id], platforms: [platform.id], device_types: [type.id], is_active: false });
      const names = async (q: string) => (await t().get(`/api/extras/config-contexts/?${q}`).expect(200)).body.results.map((x: any) => x.name).sort();
      expect(await names('location=AMS1')).toEqual(['f-site']);
      expect(await names(`location_id=${site.id}`)).toEqual(['f-site']);
      expect(await names('role=Router')).toEqual(['f-site']);
      expect(await names('tag=gold')).toEqual(['f-site']);
      expect(await names('tenant=Shop')).toEqual(['f-tenant']);
      expect(await names(`tenant_id=${tenant.id}`)).toEqual(['f-tenant']);
      expect(await names('tenant_group=Customers')).toEqual(['f-tenant']);
      expect(await names('platform=Junos')).toEqual(['f-tenant']);
      expect(await names('device_type=MX204')).toEqual(['f-tenant']);
      expect(await names(`device_type_id=${type.id}`)).toEqual(['f-tenant']);
      expect(await names('is_active=false')).toEqual(['f-tenant']);
      expect(await names('q=needle')).toEqual(['f-site']);
      await t().get('/api/extras/config-contexts/?location=nowhere').expect(400);
    });

    it('renders a page of devices in a bounded number of statements', async () => {
      const batch = (await t().post('/api/dcim/devices/', Array.from({ length: 40 }, (_, i) => device({ name: `p${i}`, location: i % 2 ? site.id : other.id, tags: i % 3 ? [] : [gold.id] }))).expect(201)).body;
      expect(batch).toHaveLength(40);
      await ctx({ name: 'p-europe', data: { eu: true }, locations: [region.id] });
      await ctx({ name: 'p-gold', data: { gold: true }, tags: [gold.id] });
      await ctx({ name: 'p-group', data: { group: true }, tenant_groups: [group.id] });
      const cost = async (limit: number) => {
        let body: any;
        const n = await t().countStatements(async () => {
          body = (await t().get(`/api/dcim/devices/?name__isw=p&limit=${limit}&include=config_context`).expect(200)).body;
        });
        expect(body.results).toHaveLength(limit);
        return { n, body };
      };
      // The first read of a filter counts its total apart; from the second on, inside the page statement.
      await t().get('/api/dcim/devices/?name__isw=p&limit=40').expect(200);
      const plain = await t().countStatements(() => t().get('/api/dcim/devices/?name__isw=p&limit=40').expect(200));
      // The first render reads the catalogue of active contexts (what each names), kept between requests after it.
      const first = await cost(1);
      const [one, all] = [await cost(1), await cost(40)];
      expect(first.n).toBe(one.n + 2);
      expect(all.n).toBe(one.n);
      // One statement more than the plain page: the contexts of every row at once.
      expect(all.n).toBe(plain + 1);
      for (const d of all.body.results) {
        const i = Number(d.name.slice(1));
        expect(d.config_context).toEqual({ ...(i % 2 ? { eu: true } : {}), ...(i % 3 ? {} : { gold: true }) });
      }
    });
  },
  { env: { CREDENTIAL_CACHE: 'false' } },
);
