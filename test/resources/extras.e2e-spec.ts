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

describeResourceContract({
  objectType: 'extras.customfield',
  path: '/api/extras/custom-fields/',
  make: (_, n) => ({ label: `Field ${n}`, key: `field_${n}`, type: 'text', content_types: ['tenancy.tenant'] }),
  update: () => ({ description: 'changed', weight: 50, filter_logic: 'exact' }),
  bulkUpdate: () => ({ description: 'bulk' }),
  invalid: () => ({ label: 'Broken', key: 'Not A Key!', type: 'text', content_types: ['tenancy.tenant'] }),
  choices: { type: ['text', 'integer', 'boolean', 'date', 'url', 'select', 'multi-select', 'json', 'markdown'], filter_logic: ['disabled', 'loose', 'exact'] },
  customFields: false,
  sortField: 'label',
});

describeResourceContract({
  objectType: 'extras.customfieldchoice',
  path: '/api/extras/custom-field-choices/',
  setup: async (t) => ({ cf: (await t.post('/api/extras/custom-fields/', { label: 'Contract colour', key: 'contract_colour', type: 'select', content_types: ['tenancy.tenant'] }).expect(201)).body }),
  make: (ctx, n) => ({ custom_field: ctx.cf.id, value: `choice-${n}`, weight: n % 1000 }),
  update: () => ({ weight: 5 }),
  bulkUpdate: () => ({ weight: 7 }),
  invalid: (ctx) => ({ custom_field: ctx.cf.id }),
  customFields: false,
  notes: false,
  sortField: 'value',
});

describeResourceContract({
  objectType: 'extras.note',
  path: '/api/extras/notes/',
  setup: async (t) => ({ tenant: (await t.post('/api/tenancy/tenants/', { name: 'Noted tenant' }).expect(201)).body }),
  make: (ctx, n) => ({ assigned_object_type: 'tenancy.tenant', assigned_object_id: ctx.tenant.id, note: `note ${n}` }),
  update: () => ({ note: 'changed' }),
  bulkUpdate: () => ({ note: 'bulk' }),
  invalid: (ctx) => ({ assigned_object_type: 'tenancy.tenant', assigned_object_id: ctx.tenant.id }),
  customFields: false,
  notes: false,
  sortField: 'note',
  viewAlso: ['tenancy.tenant'],
});
