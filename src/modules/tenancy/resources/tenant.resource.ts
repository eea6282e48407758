import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { tenantGroupResource } from './tenant-group.resource';

export const tenantResource = defineResource({
  app: 'tenancy',
  model: 'tenant',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'tenants',
  mixins: [named()],
  ordering: ['tenant_group', 'name'],
  fields: {
    description: field.string({ maxLength: 200 }),
    comments: field.text(),
    tenant_group: field.foreignKey(() => tenantGroupResource, { nullable: true, tree: true, onDelete: 'protect' }),
  },
  search: ['description', 'comments'],
  features: ['tags', 'customFields', 'notes'],
});
