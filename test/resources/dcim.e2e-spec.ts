import { describeResourceContract } from '../../src/core/testing/resource-contract';

describeResourceContract({
  objectType: 'dcim.locationtype',
  path: '/api/dcim/location-types/',
  make: (_, n) => ({ name: `Type ${n}`, nestable: n % 2 === 0, content_types: ['dcim.location'] }),
  update: () => ({ description: 'changed' }),
  invalid: () => ({ name: 'Rack Group' }),
  tree: true,
  chain: () => [{ name: 'Region' }, { name: 'Site' }, { name: 'Building' }],
});

describeResourceContract({
  objectType: 'dcim.location',
  path: '/api/dcim/locations/',
  setup: async (t) => {
    const type = (await t.post('/api/dcim/location-types/', { name: 'Area', nestable: true }).expect(201)).body;
    const tenant = (await t.post('/api/tenancy/tenants/', { name: 'Acme' }).expect(201)).body;
    return { type, tenant };
  },
  make: (ctx, n) => ({
    name: `Site ${n}`,
    location_type: ctx.type.id,
    status: 'Active',
    tenant: ctx.tenant.id,
    facility: `F${n}`,
    asn: 65000 + n,
    latitude: '52.370216',
    longitude: '4.895168',
    time_zone: 'Europe/Amsterdam',
    contact_email: 'noc@example.net',
  }),
  update: () => ({ description: 'changed', status: { name: 'Planned' }, latitude: '-33.868820', tenant: null }),
  bulkUpdate: () => ({ status: 'Planned', facility: 'bulk' }),
  invalid: (ctx) => ({ name: 'x', location_type: ctx.type.id, status: 'No Such Status' }),
  tree: true,
  chain: (ctx) => [
    { name: 'EU', location_type: ctx.type.id, status: 'Active' },
    { name: 'NL', location_type: ctx.type.id, status: 'Active' },
    { name: 'AMS1', location_type: ctx.type.id, status: 'Active' },
  ],
});
