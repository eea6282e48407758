import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { Role } from '../entities/role.entity';
import { nameColorFields } from './name-color';

export const roleResource = defineResource({
  app: 'extras',
  model: 'role',
  slug: 'roles',
  table: 'extras_role',
  entity: Role,
  naturalKey: ['name'],
  ordering: ['weight', 'name'],
  display: (r) => r.name,
  fields: {
    ...nameColorFields(),
    weight: field.integer({ minValue: 0, maxValue: 32767 }),
    content_types: field.contentTypes({ table: 'extras_role_content_types', source: 'role_id' }, (d) => d.features.includes('roles'), {
      label: 'Content types',
      filterAny: true,
    }),
  },
  search: ['name', 'content_types'],
  features: ['customFields', 'notes'],
});
