import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { nameColor } from './name-color';

export const statusResource = defineResource({
  app: 'extras',
  model: 'status',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'statuses',
  verboseNamePlural: 'statuses',
  mixins: nameColor(),
  fields: {
    content_types: field.contentTypes({ table: 'extras_status_content_types', source: 'status_id' }, (d) => d.features.includes('statuses'), { label: 'Content types' }),
  },
  search: ['content_types'],
  features: ['customFields', 'notes'],
});
