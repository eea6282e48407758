import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { TenantGroup } from '../entities/tenant-group.entity';

export const tenantGroupResource = defineResource({
  app: 'tenancy',
  model: 'tenantgroup',
  slug: 'tenant-groups',
  table: 'tenancy_tenantgroup',
  entity: TenantGroup,
  verboseName: 'tenant group',
  verboseNamePlural: 'tenant groups',
  naturalKey: ['name'],
  ordering: ['name'],
  tree: { parent: 'parent' },
  display: (r) => r.name,
  fields: {
    name: field.string({ required: true, unique: true }),
    description: field.string(),
    parent: field.foreignKey(() => tenantGroupResource, { nullable: true, onDelete: 'cascade' }),
  },
  search: ['name', 'description'],
  features: ['customFields', 'notes'],
});
