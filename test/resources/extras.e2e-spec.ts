import { describeResourceContract } from '../../src/core/testing/resource-contract';

describeResourceContract({
  objectType: 'extras.status',
  path: '/api/extras/statuses/',
  make: (_, n) => ({ name: `Status ${n}`, color: 'aa1409', content_types: ['dcim.location'] }),
  update: () => ({ description: 'changed', color: '00ff00' }),
  invalid: () => ({ name: '', color: 'nothex' }),
});

describeResourceContract({
  objectType: 'extras.tag',
  path: '/api/extras/tags/',
  make: (_, n) => ({ name: `Tag ${n}`, color: '123456', content_types: ['dcim.location', 'tenancy.tenant'] }),
  update: () => ({ description: 'changed', content_types: ['tenancy.tenant'] }),
  invalid: () => ({ name: 'x', content_types: ['dcim.nosuchmodel'] }),
});

describeResourceContract({
  objectType: 'extras.role',
  path: '/api/extras/roles/',
  make: (_, n) => ({ name: `Role ${n}`, color: 'ff0000', weight: n, content_types: [] }),
  update: () => ({ weight: 5000, description: 'changed' }),
  invalid: () => ({ name: 'x', weight: 'heavy' }),
});
