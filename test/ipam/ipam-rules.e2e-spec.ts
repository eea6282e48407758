import { eachDatabase } from '../../src/core/testing/harness';
import { createInterfaces, interfaceId } from '../support/ipam-fixtures';

type Obj = Record<string, any>;

/** Model rules, reference error texts, versions, filters and statement bounds of IPAM. */
eachDatabase('IPAM rules', (t) => {
  const post = (path: string, body: unknown) => t().post(`/api/ipam/${path}/`, body);
  const prefix = async (p: string, extra: Obj = {}) => (await post('prefixes', { prefix: p, status: 'Active', ...extra }).expect(201)).body as Obj;
  const address = async (a: string, extra: Obj = {}) => (await post('ip-addresses', { address: a, status: 'Active', namespace: 'Global', ...extra }).expect(201)).body as Obj;
  let other: Obj;

  beforeAll(async () => {
    other = (await post('namespaces', { name: 'Lab' }).expect(201)).body;
  });

  it('has the Global namespace from the first start, and uses it when none is given', async () => {
    const ns = (await t().get('/api/ipam/namespaces/?name=Global').expect(200)).body.results;
    expect(ns).toHaveLength(1);
    expect(ns[0].description).toMatch(/Default Global namespace/);
    const p = await prefix('10.1.2.3/24');
    expect(p.namespace.id).toBe(ns[0].id);
    expect(p).toMatchObject({ prefix: '10.1.2.0/24', display: '10.1.2.0/24: Global', natural_slug: expect.stringMatching(/^global_10-1-2-0_24_[0-9a-f]{4}$/) });
    const vrf = (await post('vrfs', { name: 'blue', rd: '65000:1' }).expect(201)).body;
    expect(vrf).toMatchObject({ display: 'Global: (blue)', namespace: { id: ns[0].id } });
  });

  it('answers bad CIDRs and duplicates with 400', async () => {
    for (const bad of ['', '10.0.0.0/33', '10.0.0', '2001:db8::/129', 'x']) {
      expect((await post('prefixes', { prefix: bad, status: 'Active' }).expect(400)).body).toEqual({ prefix: [`Invalid IP address format: ${bad}`] });
    }
    expect((await post('prefixes', { prefix: 42, status: 'Active' }).expect(400)).body).toHaveProperty('prefix');
    expect((await post('prefixes', { prefix: '10.1.2.77/24', status: 'Active' }).expect(400)).body).toEqual({
      __all__: ['Prefix with this Namespace, Network and Prefix length already exists.'],
    });
    await prefix('10.1.2.0/24', { namespace: other.id });
    for (const bad of ['', '192.168.0.0.100/24', '192.168.0.0/35', '1:2:3:4:5:6:7:8:9/64']) {
      expect((await post('ip-addresses', { address: bad, status: 'Active', namespace: 'Global' }).expect(400)).body).toHaveProperty('address');
    }
    const list = await post('prefixes', [{ prefix: '10.9.0.0/16', status: 'Active' }, { prefix: '10.9.0.0/16', status: 'Active' }]).expect(400);
    expect(list.body[0]).toEqual({});
    expect(list.body[1]).toHaveProperty('__all__');
  });

  it('places addresses with the reference texts for a missing, absent and wrong parent', async () => {
    expect((await post('ip-addresses', { address: '10.1.2.5/24', status: 'Active' }).expect(400)).body).toEqual({ __all__: ['One of parent or namespace must be provided'] });
    expect((await post('ip-addresses', { address: '99.0.0.1/24', status: 'Active', namespace: 'Global' }).expect(400)).body).toEqual({
      namespace: ['No suitable parent Prefix for 99.0.0.1 exists in Namespace Global'],
    });
    const wide = await prefix('10.0.0.0/8');
    const res = await post('ip-addresses', { address: '10.1.2.5/24', status: 'Active', parent: wide.id }).expect(400);
    expect(res.body).toEqual({ parent: ['10.0.0.0/8 cannot be assigned as the parent of 10.1.2.5/24.  In namespace Global, the expected parent would be 10.1.2.0/24.'] });
    const byParent = (await post('ip-addresses', { address: '10.1.2.5/24', status: 'Active', parent: { prefix: '10.1.2.0/24', namespace: { name: 'Lab' } } }).expect(201)).body;
    expect(byParent.parent.id).toBe((await t().get(`/api/ipam/prefixes/?prefix=10.1.2.0/24&namespace=Lab`).expect(200)).body.results[0].id);
    // The same host in another namespace is another address; in the same namespace, with any mask, a duplicate.
    await address('10.1.2.5/24');
    expect((await post('ip-addresses', { address: '10.1.2.5/32', status: 'Active', namespace: 'Global' }).expect(400)).body).toEqual({
      __all__: ['IP address with this Parent and Host already exists.'],
    });
    // IPv4-mapped IPv6 is not IPv4: it needs an IPv6 parent.
    expect((await post('ip-addresses', { address: '::ffff:10.1.2.5/128', status: 'Active', namespace: 'Global' }).expect(400)).body).toHaveProperty('namespace');
  });

  it('keeps the host of an address, lower-cases DNS names and allows SLAAC only on IPv6', async () => {
    const a = await address('10.1.2.9/24', { dns_name: 'Router-1.Example.COM' });
    expect(a.dns_name).toBe('router-1.example.com');
    expect((await t().patch(`/api/ipam/ip-addresses/${a.id}/`, { address: '10.1.2.10/24' }).expect(400)).body).toEqual({ __all__: ['Host address cannot be changed once created'] });
    expect((await t().patch(`/api/ipam/ip-addresses/${a.id}/`, { address: '10.1.2.9/25' }).expect(200)).body.address).toBe('10.1.2.9/25');
    expect((await t().patch(`/api/ipam/ip-addresses/${a.id}/`, { type: 'slaac' }).expect(400)).body).toEqual({ type: ['Only IPv6 addresses can be assigned SLAAC type'] });
    expect((await t().patch(`/api/ipam/ip-addresses/${a.id}/`, { dns_name: 'bad name!' }).expect(400)).body).toHaveProperty('dns_name');
    await prefix('2001:db8::/64');
    expect((await post('ip-addresses', { address: '2001:db8::9/64', status: 'Active', namespace: 'Global', type: 'slaac' }).expect(201)).body.type).toEqual({
      value: 'slaac',
      label: 'SLAAC',
    });
  });

  it('shows NAT relations both ways and filters on them', async () => {
    const inside = await address('10.1.2.20/24');
    await prefix('198.51.100.0/24');
    const outside = await address('198.51.100.20/24', { nat_inside: inside.id });
    const got = (await t().get(`/api/ipam/ip-addresses/${inside.id}/`).expect(200)).body;
    expect(got.nat_outside_list).toEqual([{ id: outside.id, object_type: 'ipam.ipaddress', url: expect.stringMatching(new RegExp(`/api/ipam/ip-addresses/${outside.id}/$`)) }]);
    const natted = (await t().get('/api/ipam/ip-addresses/?has_nat_inside=true').expect(200)).body.results.map((x: Obj) => x.id);
    expect(natted).toEqual([outside.id]);
    expect((await t().get('/api/ipam/ip-addresses/?has_nat_inside=false&limit=1000').expect(200)).body.results.map((x: Obj) => x.id)).not.toContain(outside.id);
    await t().del(`/api/ipam/ip-addresses/${inside.id}/`).expect(204);
    expect((await t().get(`/api/ipam/ip-addresses/${outside.id}/`).expect(200)).body.nat_inside).toBeNull();
  });

  // A list page lists nat_outside_list and the namespace names of displays and natural slugs in
  // its own statement (where the database can aggregate), a detail reads them by id.
  it('lists nat_outside_list in address order and names namespaces alike on list pages and details, within the reader scope', async () => {
    await prefix('10.77.0.0/16');
    const inside = await address('10.77.0.21/16');
    await prefix('203.0.113.0/24');
    const nat = (await post('namespaces', { name: 'NAT lab' }).expect(201)).body;
    await prefix('203.0.113.0/24', { namespace: nat.id });
    await prefix('2001:db8:5::/64');
    // Created out of order; two share a host in different namespaces (then the mask decides).
    const v6 = await address('2001:db8:5::1/64', { nat_inside: inside.id, dns_name: 'seen' });
    const high = await address('203.0.113.9/24', { nat_inside: inside.id, dns_name: 'hidden' });
    const lab = await address('203.0.113.5/32', { nat_inside: inside.id, dns_name: 'seen', namespace: nat.id });
    const low = await address('203.0.113.5/24', { nat_inside: inside.id, dns_name: 'seen' });
    const outsideIds = (o: Obj) => (o.nat_outside_list as Obj[]).map((r) => r.id);
    const both = async (tok?: string) => {
      const detail = (await t().get(`/api/ipam/ip-addresses/${inside.id}/`, tok).expect(200)).body;
      const listed = (await t().get(`/api/ipam/ip-addresses/?id=${inside.id}`, tok).expect(200)).body.results;
      expect(listed).toEqual([detail]);
      return detail;
    };
    const all = await both();
    expect(outsideIds(all)).toEqual([low.id, lab.id, high.id, v6.id]);
    expect(all.natural_slug).toBe(`global_10-77-0-21_${inside.id.slice(0, 4)}`);

    // This reader sees addresses without a DNS name or named "seen", and no namespace.
    const tok = await t().userWith('nat-reader', [
      { types: ['ipam.ipaddress'], actions: ['view'], constraints: [{ dns_name: '' }, { dns_name: 'seen' }] },
      { types: ['ipam.prefix', 'extras.status'], actions: ['view'] },
    ]);
    const scoped = await both(tok);
    expect(outsideIds(scoped)).toEqual([low.id, lab.id, v6.id]);
    expect(scoped.natural_slug).toBe(`10-77-0-21_${inside.id.slice(0, 4)}`);
    const prefixes = (await t().get('/api/ipam/prefixes/?prefix=203.0.113.0/24', tok).expect(200)).body.results as Obj[];
    expect(prefixes.map((p) => p.display)).toEqual(['203.0.113.0/24: ', '203.0.113.0/24: ']);
    for (const p of prefixes) expect((await t().get(`/api/ipam/prefixes/${p.id}/`, tok).expect(200)).body).toEqual(p);
  });

  it('has a single location in API 2.0/2.1 (required) and locations from 2.2', async () => {
    const type = (await t().post('/api/dcim/location-types/', { name: 'Site', nestable: true }).expect(201)).body;
    const region = (await t().post('/api/dcim/locations/', { name: 'Region', location_type: type.id, status: 'Active' }).expect(201)).body;
    const siteA = (await t().post('/api/dcim/locations/', { name: 'A', location_type: type.id, status: 'Active', parent: region.id }).expect(201)).body;
    const v21 = (path: string) => `${path}${path.includes('?') ? '&' : '?'}api_version=2.1`;
    expect((await t().post(v21('/api/ipam/prefixes/'), { prefix: '10.30.0.0/16', status: 'Active' }).expect(400)).body).toEqual({ location: ['This field is required.'] });
    const old = (await t().post(v21('/api/ipam/prefixes/'), { prefix: '10.30.0.0/16', status: 'Active', location: siteA.id }).expect(201)).body;
    expect(old.location).toMatchObject({ id: siteA.id });
    expect(old).not.toHaveProperty('locations');
    const now = (await t().get(`/api/ipam/prefixes/${old.id}/`).expect(200)).body;
    expect(now.locations.map((l: Obj) => l.id)).toEqual([siteA.id]);
    expect(now).not.toHaveProperty('location');
    // From 2.2 on `location` is still accepted, write-only, and replaces the set.
    const patched = (await t().patch(`/api/ipam/prefixes/${old.id}/`, { location: region.id }).expect(200)).body;
    expect(patched.locations.map((l: Obj) => l.id)).toEqual([region.id]);
    await t().patch(`/api/ipam/prefixes/${old.id}/`, { locations: [siteA.id, region.id] }).expect(200);
    // Location filters include descendants; the location counts prefixes.
    expect((await t().get(`/api/ipam/prefixes/?location=${region.id}`).expect(200)).body.count).toBe(1);
    await prefix('10.31.0.0/16', { locations: [siteA.id] });
    expect((await t().get(`/api/ipam/prefixes/?location=Region`).expect(200)).body.count).toBe(2);
    expect((await t().get(`/api/dcim/locations/${siteA.id}/`).expect(200)).body.prefix_count).toBe(2);
    // A list page counts in its own query: the same figures, and only what the reader may view.
    const listed = (await t().get(`/api/dcim/locations/?id=${siteA.id}&id=${region.id}`).expect(200)).body.results;
    expect(Object.fromEntries(listed.map((l: Obj) => [l.id, l.prefix_count]))).toEqual({ [siteA.id]: 2, [region.id]: 1 });
    const reader = await t().userWith('count-reader', [
      { types: ['dcim.location'], actions: ['view'] },
      { types: ['ipam.prefix'], actions: ['view'], constraints: { network: '10.31.0.0' } },
    ]);
    const scoped = (await t().get(`/api/dcim/locations/?id=${siteA.id}&id=${region.id}`, reader).expect(200)).body;
    expect(scoped.count).toBe(2);
    expect(Object.fromEntries(scoped.results.map((l: Obj) => [l.id, l.prefix_count]))).toEqual({ [siteA.id]: 1, [region.id]: 0 });
    expect((await t().get(`/api/dcim/locations/${siteA.id}/`, reader).expect(200)).body.prefix_count).toBe(1);
    expect((await t().get(`/api/ipam/vlans/?location=${region.id}`).expect(200)).body.count).toBe(0);
  });

  it('filters prefixes and addresses by VRF, directly and through route targets', async () => {
    const [rtA, rtB] = (await post('route-targets', [{ name: '65000:10' }, { name: '65000:20' }]).expect(201)).body;
    const red = (await post('vrfs', { name: 'red', rd: '65000:10', import_targets: [rtB.id] }).expect(201)).body;
    const green = (await post('vrfs', { name: 'green', rd: '65000:20', export_targets: [rtB.id, rtA.id] }).expect(201)).body;
    const p1 = await prefix('10.40.1.0/24');
    const p2 = await prefix('10.40.2.0/24');
    await post('vrf-prefix-assignments', [{ vrf: red.id, prefix: p1.id }, { vrf: green.id, prefix: p2.id }]).expect(201);
    const a2 = await address('10.40.2.2/24');
    const ids = async (q: string, path = 'prefixes') => (await t().get(`/api/ipam/${path}/?${q}`).expect(200)).body.results.map((x: Obj) => x.id).sort();
    expect(await ids(`vrf=${red.id}`)).toEqual([p1.id]);
    expect(await ids('vrf=green')).toEqual([p2.id]);
    expect(await ids(`present_in_vrf=${red.id}`)).toEqual([p1.id, p2.id].sort());
    expect(await ids('present_in_vrf=green')).toEqual([p2.id]);
    expect(await ids('vrf=green', 'ip-addresses')).toEqual([a2.id]);
    expect(await ids('present_in_vrf=red', 'ip-addresses')).toEqual([a2.id]);
    expect((await t().get('/api/ipam/prefixes/?vrf=no-such-vrf').expect(400)).body).toHaveProperty('vrf');
    const shown = (await t().get(`/api/ipam/prefixes/${p1.id}/`).expect(200)).body;
    expect(shown.vrfs.map((v: Obj) => v.id)).toEqual([red.id]);
    expect((await t().get(`/api/ipam/vrfs/${red.id}/`).expect(200)).body.prefixes.map((p: Obj) => p.id)).toEqual([p1.id]);
    // VRF uniqueness, and assignments across namespaces.
    expect((await post('vrfs', { name: 'dup', rd: '65000:10' }).expect(400)).body).toEqual({ non_field_errors: ['The fields namespace, rd must make a unique set.'] });
    const labPrefix = await prefix('10.40.3.0/24', { namespace: other.id });
    expect((await post('vrf-prefix-assignments', { vrf: red.id, prefix: labPrefix.id }).expect(400)).body).toHaveProperty('prefix');
    // A prefix in a VRF may not change namespace.
    expect((await t().patch(`/api/ipam/prefixes/${p1.id}/`, { namespace: other.id }).expect(400)).body).toHaveProperty('namespace');
  });

  it('computes utilization per page in SQL', async () => {
    const container = await prefix('10.80.0.0/16', { type: 'container' });
    await prefix('10.80.0.0/17');
    await prefix('10.80.128.0/18');
    const network = await prefix('10.81.0.0/24');
    await t().post('/api/ipam/ip-addresses/', ['10.81.0.1', '10.81.0.2', '10.81.0.3'].map((a) => ({ address: `${a}/24`, status: 'Active', namespace: 'Global' }))).expect(201);
    await prefix('10.81.0.128/25');
    const pool = await prefix('10.82.0.0/30', { type: 'pool' });
    await address('10.82.0.0/30');
    const edge = await prefix('10.83.0.0/30');
    await address('10.83.0.0/30');
    const u = async (p: Obj) => (await t().get(`/api/ipam/prefixes/${p.id}/`).expect(200)).body.utilization;
    expect(await u(container)).toBe(75);
    // 128 (child /25) + 3 addresses of 256: the child /25 uses the broadcast address, so it counts.
    expect(await u(network)).toBe(51.17);
    expect(await u(pool)).toBe(25);
    // The network address is in use, so it counts as usable space.
    expect(await u(edge)).toBe(25);
    // An edge used by a child prefix, by an address of the prefix, or by an address of a child
    // at that edge: the /29 keeps all 8 addresses as its size; unused, it counts 6.
    const edges: [string, string, string | null, number][] = [
      ['10.84.0.0/29', '10.84.0.0/30', '10.84.0.7/29', 62.5], // a child at the start, an address at the end
      ['10.85.0.0/29', '10.85.0.2/31', '10.85.0.0/29', 37.5], // an address of the /29 at its start
      ['10.86.0.0/29', '10.86.0.0/30', '10.86.0.0/32', 50], // an address of the child at the start
      ['10.87.0.0/29', '10.87.0.2/31', null, 33.33], // neither edge used
    ];
    for (const [net, child, addr, expected] of edges) {
      const p = await prefix(net);
      await prefix(child);
      if (addr) await address(addr);
      expect([net, await u(p)]).toEqual([net, expected]);
    }
    const page = await t().get('/api/ipam/prefixes/?within_include=10.80.0.0/14&limit=50&depth=1').expect(200);
    expect(page.body.results.every((p: Obj) => typeof p.utilization === 'number')).toBe(true);
    expect(page.body.results[0].parent === null || !('utilization' in page.body.results[0].parent)).toBe(true);
  });

  it('checks VLAN ids against the group range and keeps them unique per group', async () => {
    const group = (await post('vlan-groups', { name: 'campus', range: '100-199' }).expect(201)).body;
    await post('vlans', { vid: 100, name: 'users', status: 'Active', vlan_group: group.id }).expect(201);
    expect((await post('vlans', { vid: 100, name: 'other', status: 'Active', vlan_group: group.id }).expect(400)).body).toEqual({
      non_field_errors: ['The fields vlan_group, vid must make a unique set.'],
    });
    expect((await post('vlans', { vid: 300, name: 'far', status: 'Active', vlan_group: group.id }).expect(400)).body).toEqual({
      vid: ['VLAN ID is not contained in VLAN Group range (100-199)'],
    });
    expect((await post('vlans', { vid: 4095, name: 'x', status: 'Active' }).expect(400)).body).toHaveProperty('vid');
    await post('vlans', { vid: 100, name: 'users', status: 'Active' }).expect(201);
    expect((await t().patch(`/api/ipam/vlan-groups/${group.id}/`, { range: '150-199' }).expect(400)).body).toEqual({
      range: ['VLAN group range may not be re-sized due to existing VLANs (IDs: 100).'],
    });
    expect((await t().get(`/api/ipam/vlan-groups/${group.id}/`).expect(200)).body.vlan_count).toBe(1);
  });

  it('validates assignment targets by type and the reference texts', async () => {
    const a = await address('10.1.2.30/24');
    expect((await post('ip-address-to-interface', { ip_address: a.id }).expect(400)).body).toEqual({ interface: ['Must associate to either an Interface or a VMInterface.'] });
    await createInterfaces(t(), 'Assignment targets', [8001]);
    const id = interfaceId(8001);
    // A DCIM interface's id names no VM interface (both at once: test/virtualization).
    expect((await post('ip-address-to-interface', { ip_address: a.id, vm_interface: id }).expect(400)).body).toEqual({
      vm_interface: [`Related object not found using the provided attributes: {'pk': UUID('${id}')}`],
    });
  });

  it('assigns an address to an interface once: duplicates, stored or in one batch, are 400s', async () => {
    await createInterfaces(t(), 'Assignment rules', [7001, 7002]);
    const a = await address('10.1.2.31/24');
    const count = async () => (await t().get(`/api/ipam/ip-address-to-interface/?ip_address=${a.id}`).expect(200)).body.count;
    const twice = await post('ip-address-to-interface', [{ ip_address: a.id, interface: interfaceId(7001) }, { ip_address: a.id, interface: interfaceId(7001) }]).expect(400);
    expect(twice.body[0]).toEqual({});
    expect(Object.keys(twice.body[1]).length).toBeGreaterThan(0);
    const missing = await post('ip-address-to-interface', [{ ip_address: a.id, interface: interfaceId(7001) }, { ip_address: a.id, interface: interfaceId(7999) }]).expect(400);
    expect(missing.body).toEqual([{}, { interface: [`Related object not found using the provided attributes: {'pk': UUID('${interfaceId(7999)}')}`] }]);
    expect(await count()).toBe(0);
    await post('ip-address-to-interface', [{ ip_address: a.id, interface: interfaceId(7001) }, { ip_address: a.id, interface: interfaceId(7002), is_primary: true }]).expect(201);
    const again = await post('ip-address-to-interface', { ip_address: a.id, interface: interfaceId(7001) }).expect(400);
    expect(Object.keys(again.body).length).toBeGreaterThan(0);
    expect(await count()).toBe(2);
  });

  it('filters addresses by namespace, and round-trips prefixes and addresses through CSV', async () => {
    const lab = (await t().get('/api/ipam/ip-addresses/?namespace=Lab').expect(200)).body.results.map((x: Obj) => x.address);
    expect(lab).toEqual(['10.1.2.5/24']);
    for (const [path, obj] of [
      ['prefixes', await prefix('10.120.0.0/16', { description: 'csv' })],
      ['ip-addresses', await address('10.120.0.9/16', { dns_name: 'csv.example.com' })],
    ] as const) {
      const csv = await t().get(`/api/ipam/${path}/${obj.id}/?format=csv`).expect(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      await t().del(`/api/ipam/${path}/${obj.id}/`).expect(204);
      const back = await t().http.post(`/api/ipam/${path}/`).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(csv.text);
      expect(back.status).toBe(201);
      expect(back.body[0]).toMatchObject({ id: obj.id, display: obj.display, description: obj.description });
    }
  });

  it('documents the special endpoints', async () => {
    const doc = (await t().get('/api/swagger.json').expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/ipam/prefixes/', '/api/ipam/prefixes/{id}/available-ips/', '/api/ipam/prefixes/{id}/available-prefixes/']));
  });

  it('lists a page of 1,000 addresses and creates 1,000 with parents in a bounded number of statements', async () => {
    await prefix('10.90.0.0/16');
    await t().post('/api/ipam/prefixes/', Array.from({ length: 8 }, (_, i) => ({ prefix: `10.90.${i}.0/24`, status: 'Active' }))).expect(201);
    const body = Array.from({ length: 1000 }, (_, i) => ({ address: `10.90.${i >> 7}.${(i & 127) + 1}/24`, status: 'Active', namespace: 'Global' }));
    let created: Obj[] = [];
    const writes = await t().countStatements(async () => {
      created = (await t().post('/api/ipam/ip-addresses/', body).expect(201)).body;
    });
    expect(created).toHaveLength(1000);
    expect(created[999]).toMatchObject({ address: '10.90.7.104/24' });
    expect(writes).toBeLessThanOrEqual(40);
    const reads = await t().countStatements(async () => {
      const page = (await t().get('/api/ipam/ip-addresses/?parent=10.90.3.0/24&limit=1000').expect(200)).body;
      expect(page.count).toBe(128);
    });
    expect(reads).toBeLessThanOrEqual(12);
    const all = await t().countStatements(() => t().get('/api/ipam/prefixes/?limit=1000&depth=1').expect(200));
    expect(all).toBeLessThanOrEqual(20);
    // A deep page (MySQL/MariaDB find its ids first) with the namespace joined in for natural_slug.
    const more = (await t().post('/api/ipam/ip-addresses/', [1, 2, 3].map((i) => ({ address: `10.90.7.${120 + i}/24`, status: 'Active', namespace: 'Global' }))).expect(201)).body;
    const deep = (await t().get('/api/ipam/ip-addresses/?within=10.90.0.0/16&limit=5&offset=1000').expect(200)).body;
    expect(deep.count).toBe(1003);
    expect(deep.results.map((x: Obj) => x.id)).toEqual(more.map((x: Obj) => x.id));
    for (const x of deep.results) expect(x.natural_slug).toBe(`global_${x.host.replaceAll('.', '-')}_${x.id.slice(0, 4)}`);
  });
});
