import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';

export const rirResource = defineResource({
  app: 'ipam',
  model: 'rir',
  slug: 'rirs',
  verboseName: 'RIR',
  verboseNamePlural: 'RIRs',
  mixins: [named(255)],
  fields: {
    is_private: field.boolean({ label: 'Private', help: 'IP space managed by this RIR is considered private' }),
    description: field.string({ maxLength: 255 }),
    assigned_prefix_count: field.count('ipam.prefix', 'rir'),
  },
  search: ['description'],
  features: ['customFields', 'notes'],
});
