import { describeResourceContract } from '../../src/core/testing/resource-contract';

describeResourceContract({
  objectType: 'tenancy.tenantgroup',
  path: '/api/tenancy/tenant-groups/',
  make: (_, n) => ({ name: `Group ${n}` }),
  update: () => ({ description: 'changed' }),
  invalid: () => ({ description: 'no name' }),
  tree: true,
  chain: () => [{ name: 'TG root' }, { name: 'TG child' }, { name: 'TG grandchild' }],
});

describeResourceContract({
  objectType: 'tenancy.tenant',
  path: '/api/tenancy/tenants/',
  setup: async (t) => ({ group: (await t.post('/api/tenancy/tenant-groups/', { name: 'Customers' }).expect(201)).body }),
  make: (ctx, n) => ({ name: `Tenant ${n}`, tenant_group: ctx.group.id, comments: 'c' }),
  update: () => ({ description: 'changed', tenant_group: null }),
  invalid: () => ({ name: 'x'.repeat(101) }),
});
