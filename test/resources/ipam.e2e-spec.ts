import { describeResourceContract } from '../../src/core/testing/resource-contract';
import type { TestApp } from '../../src/core/testing/harness';
import { installInterfaceStandIn, interfaceId } from '../support/ipam-fixtures';

/** Three-digit octets, so text order is address order (the contract sorts as text). */
const octets = (n: number) => `${100 + Math.floor(n / 100)}.${100 + (n % 100)}`;

async function site(t: TestApp, name: string) {
  const type = (await t.post('/api/dcim/location-types/', { name: `${name} type`, nestable: true }).expect(201)).body;
  return (await t.post('/api/dcim/locations/', { name, location_type: type.id, status: 'Active' }).expect(201)).body;
}

describeResourceContract({
  objectType: 'ipam.namespace',
  path: '/api/ipam/namespaces/',
  make: (_, n) => ({ name: `Namespace ${n}`, description: `ns ${n}` }),
  update: () => ({ description: 'changed' }),
  invalid: () => ({ name: '' }),
});

describeResourceContract({
  objectType: 'ipam.rir',
  path: '/api/ipam/rirs/',
  make: (_, n) => ({ name: `RIR ${n}`, is_private: n % 2 === 0 }),
  update: () => ({ description: 'changed', is_private: true }),
  invalid: () => ({ name: 'x', is_private: 'maybe' }),
});

describeResourceContract({
  objectType: 'ipam.routetarget',
  path: '/api/ipam/route-targets/',
  setup: async (t) => ({ tenant: (await t.post('/api/tenancy/tenants/', { name: 'RT tenant' }).expect(201)).body }),
  make: (ctx, n) => ({ name: `65000:${n}`, tenant: ctx.tenant.id }),
  update: () => ({ description: 'changed', tenant: null }),
  invalid: () => ({ name: '65000:123456789012345678901' }),
});

describeResourceContract({
  objectType: 'ipam.vrf',
  path: '/api/ipam/vrfs/',
  setup: async (t) => {
    const [a, b] = (await t.post('/api/ipam/route-targets/', [{ name: '65000:100' }, { name: '65000:200' }]).expect(201)).body;
    const tenant = (await t.post('/api/tenancy/tenants/', { name: 'VRF tenant' }).expect(201)).body;
    return { a, b, tenant };
  },
  // Many-to-many fields other than tags are not in CSV (as in the reference): set them in updates.
  make: (ctx, n) => ({ name: `vrf-${n}`, rd: `65000:${n}`, status: 'Active', tenant: ctx.tenant.id }),
  update: (ctx) => ({ description: 'changed', rd: null, import_targets: [ctx.b.id], export_targets: [ctx.a.id, ctx.b.id] }),
  bulkUpdate: () => ({ description: 'bulk' }),
  invalid: () => ({ rd: '65000:1' }),
});

describeResourceContract({
  objectType: 'ipam.vlangroup',
  path: '/api/ipam/vlan-groups/',
  make: (_, n) => ({ name: `VLAN group ${n}`, range: '1-2000' }),
  update: () => ({ description: 'changed', range: '1-4094' }),
  invalid: () => ({ name: 'x', range: '0-5000' }),
});

describeResourceContract({
  objectType: 'ipam.vlan',
  path: '/api/ipam/vlans/',
  setup: async (t) => {
    const group = (await t.post('/api/ipam/vlan-groups/', { name: 'VLAN contract group' }).expect(201)).body;
    return { group, loc: await site(t, 'VLAN site') };
  },
  make: (ctx, n) => ({ vid: n, name: `VLAN ${n}`, status: 'Active', vlan_group: ctx.group.id }),
  update: (ctx) => ({ description: 'changed', status: 'Planned', locations: [ctx.loc.id] }),
  bulkUpdate: () => ({ description: 'bulk' }),
  invalid: (ctx) => ({ vid: 5000, name: 'x', status: 'Active', vlan_group: ctx.group.id }),
});

describeResourceContract({
  objectType: 'ipam.prefix',
  path: '/api/ipam/prefixes/',
  setup: async (t) => {
    const role = (await t.post('/api/extras/roles/', { name: 'Prefix role', content_types: ['ipam.prefix'] }).expect(201)).body;
    const tenant = (await t.post('/api/tenancy/tenants/', { name: 'Prefix tenant' }).expect(201)).body;
    return { role, tenant, loc: await site(t, 'Prefix site') };
  },
  make: (ctx, n) => ({ prefix: `10.${octets(n)}.0/24`, status: 'Active', type: 'network', tenant: ctx.tenant.id, role: ctx.role.id }),
  update: (ctx) => ({ description: 'changed', type: 'container', date_allocated: '2024-05-01T10:00:00Z', locations: [ctx.loc.id] }),
  bulkUpdate: () => ({ description: 'bulk', tenant: null }),
  invalid: () => ({ prefix: '10.0.0.0/33', status: 'Active' }),
  choices: { type: ['container', 'network', 'pool'] },
  sortField: 'network',
});

describeResourceContract({
  objectType: 'ipam.ipaddress',
  path: '/api/ipam/ip-addresses/',
  setup: async (t) => ({ prefix: (await t.post('/api/ipam/prefixes/', { prefix: '10.200.0.0/16', status: 'Active' }).expect(201)).body }),
  make: (_, n) => ({ address: `10.200.${octets(n)}/24`, status: 'Active', namespace: 'Global', dns_name: `host${n}.example.com` }),
  update: () => ({ description: 'changed', dns_name: 'renamed.example.com', type: 'dhcp' }),
  bulkUpdate: () => ({ description: 'bulk' }),
  invalid: () => ({ address: '10.0.0.0.1', status: 'Active', namespace: 'Global' }),
  choices: { type: ['dhcp', 'host', 'slaac'] },
  writeOnly: ['namespace'],
  sortField: 'host',
});

describeResourceContract({
  objectType: 'ipam.vrfprefixassignment',
  path: '/api/ipam/vrf-prefix-assignments/',
  setup: async (t) => {
    // With a route distinguisher: a VRF's natural key (namespace, rd), used by CSV, must be unique.
    const [vrf, other] = (await t.post('/api/ipam/vrfs/', [{ name: 'assign-a', rd: '65001:1' }, { name: 'assign-b', rd: '65001:2' }]).expect(201)).body;
    // One prefix per fixture: list fixtures use n < 10, the contract's own sequence counts up from 1000.
    const prefixes = (await t.post('/api/ipam/prefixes/', Array.from({ length: 250 }, (_, i) => ({ prefix: `172.16.${i}.0/24`, status: 'Active' }))).expect(201)).body;
    return { vrf, other, prefixes };
  },
  make: (ctx, n) => ({ vrf: ctx.vrf.id, prefix: ctx.prefixes[n < 1000 ? n : 10 + ((n - 1000) % 240)].id }),
  update: (ctx) => ({ vrf: ctx.other.id }),
  invalid: (ctx) => ({ vrf: ctx.vrf.id }),
  notes: false,
  customFields: false,
  sortField: null,
});

describeResourceContract({
  objectType: 'ipam.ipaddresstointerface',
  path: '/api/ipam/ip-address-to-interface/',
  setup: async (t) => {
    await installInterfaceStandIn(t, [1, 2, 3, ...Array.from({ length: 100 }, (_, i) => 1000 + i)]);
    await t.post('/api/ipam/prefixes/', { prefix: '192.0.2.0/24', status: 'Active' }).expect(201);
    return { ip: (await t.post('/api/ipam/ip-addresses/', { address: '192.0.2.10/24', status: 'Active', namespace: 'Global' }).expect(201)).body };
  },
  make: (ctx, n) => ({ ip_address: ctx.ip.id, interface: interfaceId(n), is_primary: n % 2 === 0 }),
  update: () => ({ is_default: true, is_standby: true }),
  invalid: (ctx) => ({ ip_address: ctx.ip.id }),
  notes: false,
  customFields: false,
  sortField: null,
});
