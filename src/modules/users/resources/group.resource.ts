import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { Group } from '../entities/group.entity';

export const groupResource = defineResource({
  app: 'users',
  appLabel: 'auth',
  model: 'group',
  slug: 'groups',
  table: 'users_group',
  entity: Group,
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    name: field.string({ required: true, unique: true }),
  },
  search: ['name'],
  features: [],
  neverExempt: true,
});
