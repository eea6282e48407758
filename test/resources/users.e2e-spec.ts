import { describeResourceContract } from '../../src/core/testing/resource-contract';

describeResourceContract({
  objectType: 'users.user',
  path: '/api/users/users/',
  make: (_, n) => ({ username: `user${n}`, password: `secret-password-${n}`, email: `user${n}@example.net`, first_name: 'U' }),
  update: () => ({ last_name: 'Changed', is_staff: true }),
  bulkUpdate: () => ({ is_active: false }),
  invalid: () => ({ username: 'bad name with spaces' }),
  sortField: 'username',
  notes: false,
  customFields: false,
  neverExempt: true,
  writeOnly: ['password'],
});

describeResourceContract({
  objectType: 'auth.group',
  path: '/api/users/groups/',
  make: (_, n) => ({ name: `Team ${n}` }),
  update: () => ({ name: 'Renamed team' }),
  bulkUpdate: () => ({}),
  invalid: () => ({}),
  notes: false,
  customFields: false,
  neverExempt: true,
});

describeResourceContract({
  objectType: 'users.objectpermission',
  path: '/api/users/permissions/',
  make: (_, n) => ({ name: `Permission ${n}`, object_types: ['dcim.location'], actions: ['view'], constraints: { name__isw: 'AMS' } }),
  update: () => ({ actions: ['view', 'change'], constraints: null }),
  bulkUpdate: () => ({ enabled: false }),
  invalid: () => ({ name: 'p', object_types: ['dcim.location'], actions: ['view'], constraints: { no_such_field: 1 } }),
  notes: false,
  customFields: false,
  neverExempt: true,
});

describeResourceContract({
  objectType: 'users.token',
  path: '/api/users/tokens/',
  make: (_, n) => ({ description: `token ${n}`, write_enabled: n % 2 === 0 }),
  update: () => ({ description: 'changed', expires: '2030-01-01T00:00:00Z' }),
  invalid: () => ({ key: 'short' }),
  sortField: 'description',
  // The key is stored hashed: a re-imported token gets a new one (and so a new display).
  createOnly: ['key', 'display'],
  ownedOnly: true,
  notes: false,
  customFields: false,
  neverExempt: true,
});
