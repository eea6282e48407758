import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';

/** What a circuit is for ("Long Haul", "Metro", "Out-of-Band"). */
export const circuitTypeResource = defineResource({
  app: 'circuits',
  model: 'circuittype',
  slug: 'circuit-types',
  verboseName: 'circuit type',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255 }),
    circuit_count: field.count('circuits.circuit', 'circuit_type'),
  },
  search: ['description'],
  features: ['customFields', 'notes'],
});
