import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { Tag } from '../entities/tag.entity';
import { nameColorFields } from './name-color';

export const tagResource = defineResource({
  app: 'extras',
  model: 'tag',
  slug: 'tags',
  table: 'extras_tag',
  entity: Tag,
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    ...nameColorFields(),
    content_types: field.contentTypes({ table: 'extras_tag_content_types', source: 'tag_id' }, (d) => d.features.includes('tags'), {
      label: 'Content types',
    }),
  },
  search: ['name', 'content_types'],
  features: ['customFields', 'notes'],
});
