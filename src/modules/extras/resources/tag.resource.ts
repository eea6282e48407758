import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { nameColor } from './name-color';

export const tagResource = defineResource({
  app: 'extras',
  model: 'tag',
  // Read by a location's counts or every model's tags: kept with a detail (serialize/kept-values.ts).
  watched: true,
  slug: 'tags',
  mixins: nameColor(),
  fields: {
    content_types: field.contentTypes({ table: 'extras_tag_content_types', source: 'tag_id' }, (d) => d.features.includes('tags'), { label: 'Content types' }),
  },
  search: ['content_types'],
  features: ['customFields', 'notes'],
});
