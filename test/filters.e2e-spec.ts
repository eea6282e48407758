import { describeFilterContract } from '../src/core/testing/filter-contract';
import { eachDatabase } from '../src/core/testing/harness';
import type { TestApp } from '../src/core/testing/harness';

/** Varied data across every first model, so each filter has something to tell apart. */
async function seed(t: TestApp): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await t.post(path, body);
    if (res.status !== 201) throw new Error(`seed ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const tags = await post('/api/extras/tags/', [
    { name: 'Core', color: 'ff0000', content_types: ['dcim.location', 'tenancy.tenant'] },
    { name: 'Edge', color: '00ff00', content_types: ['dcim.location'], description: 'edge sites' },
    { name: 'Lab', content_types: ['tenancy.tenant'] },
  ]);
  await post('/api/extras/roles/', [{ name: 'Primary', weight: 10 }, { name: 'Backup', weight: 20, description: 'standby' }, { name: 'Spare' }]);
  const groups = await post('/api/tenancy/tenant-groups/', [{ name: 'Customers' }, { name: 'Internal', description: 'our own' }]);
  const sub = await post('/api/tenancy/tenant-groups/', { name: 'Enterprise', parent: groups[0].id });
  const tenants = await post('/api/tenancy/tenants/', [
    { name: 'Acme', tenant_group: sub.id, tags: [tags[0].id, tags[2].id], comments: 'big one' },
    { name: 'Globex', tenant_group: groups[0].id, tags: [tags[0].id] },
    { name: 'Initech', tenant_group: groups[1].id, description: 'printers' },
    { name: 'Umbrella' },
  ]);
  const region = await post('/api/dcim/location-types/', { name: 'Region', nestable: true, content_types: ['dcim.location'] });
  const site = await post('/api/dcim/location-types/', { name: 'Site', parent: region.id, description: 'a site' });
  const eu = await post('/api/dcim/locations/', { name: 'EU', location_type: region.id, status: 'Active', tags: [tags[0].id, tags[1].id] });
  const nl = await post('/api/dcim/locations/', { name: 'NL', location_type: region.id, parent: eu.id, status: 'Planned', tenant: tenants[0].id });
  await post('/api/dcim/locations/', [
    { name: 'AMS1', location_type: site.id, parent: nl.id, status: 'Active', tenant: tenants[0].id, asn: 65001, latitude: '52.370216', facility: 'Equinix AM1', tags: [tags[1].id] },
    { name: 'AMS2', location_type: site.id, parent: nl.id, status: 'Staged', tenant: tenants[1].id, asn: 65002, latitude: '52.300000', contact_email: 'noc@example.net' },
    { name: 'FRA1', location_type: site.id, parent: eu.id, status: 'Active', asn: 64512, time_zone: 'Europe/Berlin', tags: [tags[0].id, tags[1].id] },
  ]);
  await post('/api/dcim/locations/', { name: 'US', location_type: region.id, status: 'Retired', description: 'Americas' });
  const u = await post('/api/users/users/', [
    { username: 'alice', email: 'alice@example.net', first_name: 'Alice', is_staff: true },
    { username: 'bob', email: 'bob@example.org', last_name: 'Builder', is_active: false },
  ]);
  const g = await post('/api/users/groups/', [{ name: 'netops' }, { name: 'auditors' }]);
  await post('/api/users/permissions/', [
    { name: 'view sites', object_types: ['dcim.location'], actions: ['view'], users: [u[0].id], groups: [g[0].id] },
    { name: 'edit tenants', object_types: ['tenancy.tenant', 'dcim.location'], actions: ['view', 'change'], enabled: false, groups: [g[1].id] },
  ]);
  await post('/api/users/tokens/', [{ description: 'automation', write_enabled: false }, { description: 'ci', expires: '2030-01-01T00:00:00Z' }]);

  // IPAM: every model with two or more values in each filtered field.
  const ns = await post('/api/ipam/namespaces/', [{ name: 'Lab', description: 'lab space', location: eu.id }, { name: 'DMZ' }]);
  const rirs = await post('/api/ipam/rirs/', [{ name: 'RIPE', is_private: false }, { name: 'RFC1918', is_private: true, description: 'private' }]);
  const rts = await post('/api/ipam/route-targets/', [{ name: '65000:1', tenant: tenants[0].id }, { name: '65000:2', description: 'export' }]);
  const ipRoles = await post('/api/extras/roles/', [{ name: 'Loopback', content_types: ['ipam.ipaddress', 'ipam.prefix', 'ipam.vlan'] }, { name: 'Transit', content_types: ['ipam.ipaddress', 'ipam.prefix', 'ipam.vlan'] }]);
  const vrfs = await post('/api/ipam/vrfs/', [
    { name: 'blue', rd: '65000:100', status: 'Active', tenant: tenants[0].id, import_targets: [rts[0].id], export_targets: [rts[1].id] },
    { name: 'red', rd: '65000:200', status: 'Planned', namespace: ns[0].id, description: 'lab vrf' },
  ]);
  const vgroups = await post('/api/ipam/vlan-groups/', [{ name: 'Campus', range: '1-999' }, { name: 'Core', description: 'backbone' }]);
  const vlans = await post('/api/ipam/vlans/', [
    { vid: 10, name: 'users', status: 'Active', vlan_group: vgroups[0].id, tenant: tenants[0].id, role: ipRoles[0].id },
    { vid: 20, name: 'voice', status: 'Reserved', vlan_group: vgroups[1].id, description: 'phones', role: ipRoles[1].id },
    { vid: 30, name: 'mgmt', status: 'Active' },
  ]);
  const prefixes = await post('/api/ipam/prefixes/', [
    { prefix: '10.0.0.0/8', status: 'Active', type: 'container', rir: rirs[1].id, description: 'all' },
    { prefix: '10.1.0.0/16', status: 'Active', type: 'network', tenant: tenants[0].id, role: ipRoles[0].id, vlan: vlans[0].id, date_allocated: '2024-01-02T03:04:05Z' },
    { prefix: '10.2.0.0/16', status: 'Reserved', type: 'pool', tenant: tenants[1].id, role: ipRoles[1].id, vlan: vlans[1].id },
    { prefix: '2001:db8::/32', status: 'Active', type: 'container', rir: rirs[0].id },
    { prefix: '192.168.0.0/24', status: 'Planned', namespace: ns[0].id },
  ]);
  await post('/api/ipam/vrf-prefix-assignments/', [{ vrf: vrfs[0].id, prefix: prefixes[1].id }, { vrf: vrfs[1].id, prefix: prefixes[4].id }]);
  const inside = await post('/api/ipam/ip-addresses/', { address: '10.1.0.1/16', status: 'Active', namespace: 'Global', dns_name: 'gw.example.com', role: ipRoles[0].id, tenant: tenants[0].id });
  await post('/api/ipam/ip-addresses/', [
    { address: '10.2.0.5/16', status: 'Reserved', namespace: 'Global', type: 'dhcp', nat_inside: inside.id, tenant: tenants[1].id, role: ipRoles[1].id, description: 'nat' },
    { address: '2001:db8::1/64', status: 'Active', namespace: 'Global', type: 'slaac', dns_name: 'v6.example.com' },
    { address: '192.168.0.10/24', status: 'Planned', namespace: ns[0].id },
  ]);

  // Identity sources, and identities written the only way they can be: through the intake
  // endpoint. Every identity and role field takes at least two values (a deleted identity,
  // roles missing from later messages, grace periods, an identity without a user), and so does
  // every user link field (users the sources created, one an administrator linked).
  const sources = await post('/api/identity/sources/', [
    { name: 'HR', slug: 'hr', description: 'people', username_identifier_type: 'employeeNumber', affiliation_groups: { staff: 'HR Staff' }, status_on_delete: 'GP', grace_period_days: 10 },
    { name: 'Students', slug: 'sis', description: 'student records', username_identifier_type: 'matriculation', role_groups: { 'course-1': 'Course 1' }, status_on_delete: 'S' },
    { name: 'Partners', slug: 'partners', enabled: false, grace_period_days: 0, link_existing: true, link_match: 'email' },
  ]);
  const intake = async (source: string, sorId: string, body: unknown, status: number) => (await t.put(`/api/identity/sources/${source}/identities/${sorId}/`, body).expect(status)).body;
  const message = (given: string, family: string, employeeNumber: string | null, roles: unknown[]) => ({
    meta: { version: '1.0.0', objectType: 'externalIdentity' },
    sorAttributes: {
      names: [{ given, family }],
      emailAddresses: [{ mail: `${given.toLowerCase()}@example.edu` }],
      identifiers: employeeNumber ? [{ identifier: employeeNumber, type: 'employeeNumber' }] : [],
      roles,
    },
  });
  const role = (roleIdentifier: string, affiliation: string, status: string, extra: Record<string, unknown> = {}) => ({ roleIdentifier, affiliation, status, ...extra });
  await intake('hr', 'e-1', message('Ada', 'Lovelace', 'E1', [
    role('staff-1', 'staff', 'A', { rank: 1, title: 'Engineer', organization: 'Example', department: 'Networks', validFrom: '2020-01-01T00:00:00Z', validThrough: '2099-01-01T00:00:00Z' }),
    role('staff-2', 'staff', 'A', { rank: 5, title: 'Mentor' }),
  ]), 201);
  // staff-2 goes missing: it takes the source's status_on_delete (GP, with a grace period).
  await intake('hr', 'e-1', message('Ada', 'Lovelace', 'E1', [
    role('staff-1', 'staff', 'A', { rank: 1, title: 'Engineer', organization: 'Example', department: 'Networks', validFrom: '2020-01-01T00:00:00Z', validThrough: '2099-01-01T00:00:00Z' }),
  ]), 200);
  await intake('hr', 'e-2', message('Alan', 'Turing', 'E2', [role('staff-3', 'staff', 'S', { rank: 2, title: 'Analyst', organization: 'Other', department: 'Research' })]), 201);
  // Missing later (at another moment): it stays S, more final than GP.
  await intake('hr', 'e-2', message('Alan', 'Turing', 'E2', []), 200);
  await intake('sis', 's-1', message('Grace', 'Hopper', null, [
    role('course-1', 'student', 'A', { validFrom: '2021-09-01T00:00:00Z', validThrough: '2098-06-30T00:00:00+02:00' }),
    role('course-2', 'alumni', 'D'),
  ]), 201);
  await intake('sis', 's-2', { sorAttributes: { identifiers: [{ identifier: 'X-9', type: 'studentNumber' }], roles: [role('course-1', 'student', 'GP', { rank: 3 })] } }, 201);
  const deleted = await t.del('/api/identity/sources/sis/identities/s-1/');
  if (deleted.status !== 204) throw new Error(`DELETE identity: ${deleted.status}`);
  await post('/api/identity/user-links/', { source: sources[2].id, user: (await t.get('/api/users/users/?username=E1').expect(200)).body.results[0].id });
}

describeFilterContract(seed);

eachDatabase('content type filters', (t) => {
  it('match models by app_label.model, and a value naming no model is a 400', async () => {
    await t().post('/api/extras/tags/', [{ name: 'ct-loc', content_types: ['dcim.location'] }, { name: 'ct-ten', content_types: ['tenancy.tenant'] }]).expect(201);
    const names = async (qs: string) => (await t().get(`/api/extras/tags/?name__isw=ct-&${qs}`).expect(200)).body.results.map((r: { name: string }) => r.name);
    expect(await names('content_types=dcim.location')).toEqual(['ct-loc']);
    expect(await names('content_types__ic=tenancy')).toEqual(['ct-ten']);
    const bad = await t().get('/api/extras/tags/?content_types=nope.model').expect(400);
    expect(bad.body).toEqual({ content_types: ['Select a valid choice. nope.model is not one of the available choices.'] });
  });
});

eachDatabase('created and last_updated filters', (t) => {
  it('select objects by when they were created or last changed, on every model', async () => {
    const a = (await t().post('/api/tenancy/tenants/', { name: 'ts-a' }).expect(201)).body;
    await new Promise((r) => setTimeout(r, 20));
    const b = (await t().post('/api/tenancy/tenants/', { name: 'ts-b' }).expect(201)).body;
    const names = async (qs: string) => (await t().get(`/api/tenancy/tenants/?name__isw=ts-&${qs}`).expect(200)).body.results.map((r: { name: string }) => r.name);
    const at = (s: string) => encodeURIComponent(s);
    expect(await names(`created__gte=${at(b.created)}`)).toEqual(['ts-b']);
    expect(await names(`created__lt=${at(b.created)}`)).toEqual(['ts-a']);
    expect(await names(`created=${at(a.created)}`)).toEqual(['ts-a']);
    await new Promise((r) => setTimeout(r, 20));
    const changed = (await t().patch(`/api/tenancy/tenants/${a.id}/`, { description: 'touched' }).expect(200)).body;
    expect(await names(`last_updated__gte=${at(changed.last_updated)}`)).toEqual(['ts-a']);
    expect(await names(`last_updated__lt=${at(changed.last_updated)}`)).toEqual(['ts-b']);
    expect((await t().get('/api/tenancy/tenants/?last_updated__gte=yesterday').expect(400)).body.last_updated__gte).toBeDefined();
    await t().get(`/api/extras/tags/?created__gte=${at(a.created)}`).expect(200);
  });
});

eachDatabase(
  'unknown filters without STRICT_FILTERING',
  (t) => {
    it('are ignored, while malformed values of known filters are still a 400', async () => {
      await t().post('/api/tenancy/tenants/', [{ name: 'lax-a' }, { name: 'lax-b' }]).expect(201);
      const res = await t().get('/api/tenancy/tenants/?name__isw=lax-&no_such_filter=1&brief=1').expect(200);
      expect(res.body.results.map((r: { name: string }) => r.name)).toEqual(['lax-a', 'lax-b']);
      expect((await t().get('/api/tenancy/tenants/?created__gte=not-a-date').expect(400)).body).toHaveProperty('created__gte');
      expect((await t().get('/api/tenancy/tenants/?tenant_group=no-such-group').expect(400)).body).toHaveProperty('tenant_group');
    });
  },
  { env: { STRICT_FILTERING: 'false' } },
);

eachDatabase('case-insensitive lookups beyond ASCII', (t) => {
  it('fold Unicode letters the same way on every database', async () => {
    await t().post('/api/tenancy/tenants/', [{ name: 'École Straße' }, { name: 'ecole' }, { name: 'ΑΘΗΝΑ Δ' }]).expect(201);
    const names = async (k: string, v: string) => (await t().get(`/api/tenancy/tenants/?${k}=${encodeURIComponent(v)}`).expect(200)).body.results.map((r: { name: string }) => r.name);
    // The stored text itself always matches its own iexact.
    expect(await names('name__ie', 'École Straße')).toEqual(['École Straße']);
    expect(await names('name__ie', 'école straße')).toEqual(['École Straße']);
    expect(await names('name__ie', 'ÉCOLE STRASSE')).toEqual([]);
    expect(await names('name__ic', 'école')).toEqual(['École Straße']);
    expect(await names('name__isw', 'éc')).toEqual(['École Straße']);
    expect(await names('name__iew', 'STRASSE')).toEqual([]);
    expect(await names('name__ire', '^éc')).toEqual(['École Straße']);
    expect(await names('name__ic', 'αθηνα')).toEqual(['ΑΘΗΝΑ Δ']);
    expect(await names('name__nic', 'école')).toEqual(expect.not.arrayContaining(['École Straße']));
    expect(await names('q', 'ÉCOLE')).toEqual(['École Straße']);
  });
});
