import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { nameColor } from './name-color';

export const roleResource = defineResource({
  app: 'extras',
  model: 'role',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'roles',
  mixins: nameColor(),
  ordering: ['weight', 'name'],
  fields: {
    weight: field.integer({ minValue: 0, maxValue: 32767, nullable: true }),
    content_types: field.contentTypes({ table: 'extras_role_content_types', source: 'role_id' }, (d) => d.features.includes('roles'), { label: 'Content types', filterAny: true }),
  },
  search: ['content_types'],
  features: ['customFields', 'notes'],
});
