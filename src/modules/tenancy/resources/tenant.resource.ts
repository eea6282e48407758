import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { Tenant } from '../entities/tenant.entity';
import { tenantGroupResource } from './tenant-group.resource';

export const tenantResource = defineResource({
  app: 'tenancy',
  model: 'tenant',
  slug: 'tenants',
  table: 'tenancy_tenant',
  entity: Tenant,
  naturalKey: ['name'],
  ordering: ['tenant_group', 'name'],
  display: (r) => r.name,
  fields: {
    name: field.string({ required: true, unique: true }),
    description: field.string(),
    comments: field.text(),
    tenant_group: field.foreignKey(() => tenantGroupResource, { nullable: true, tree: true, onDelete: 'protect' }),
  },
  search: ['name', 'description', 'comments'],
  features: ['tags', 'customFields', 'notes'],
});
