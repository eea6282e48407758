import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { Rir } from '../entities/rir.entity';

export const rirResource = defineResource({
  app: 'ipam',
  model: 'rir',
  slug: 'rirs',
  table: 'ipam_rir',
  entity: Rir,
  verboseName: 'RIR',
  verboseNamePlural: 'RIRs',
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    name: field.string({ required: true, unique: true }),
    is_private: field.boolean({ label: 'Private', help: 'IP space managed by this RIR is considered private' }),
    description: field.string(),
    assigned_prefix_count: field.count('ipam.prefix', 'rir'),
  },
  search: ['name', 'description'],
  features: ['customFields', 'notes'],
});
