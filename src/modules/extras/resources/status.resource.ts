import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { Status } from '../entities/status.entity';
import { nameColorFields } from './name-color';

export const statusResource = defineResource({
  app: 'extras',
  model: 'status',
  slug: 'statuses',
  table: 'extras_status',
  entity: Status,
  verboseName: 'status',
  verboseNamePlural: 'statuses',
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    ...nameColorFields(),
    content_types: field.contentTypes({ table: 'extras_status_content_types', source: 'status_id' }, (d) => d.features.includes('statuses'), {
      label: 'Content types',
    }),
  },
  search: ['name', 'content_types'],
  features: ['customFields', 'notes'],
});
