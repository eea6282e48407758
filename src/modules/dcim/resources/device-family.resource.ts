import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';

/** A grouping of device types (a product line: Catalyst 9300, MX Series). */
export const deviceFamilyResource = defineResource({
  app: 'dcim',
  model: 'devicefamily',
  slug: 'device-families',
  verboseName: 'device family',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255 }),
    device_type_count: field.count('dcim.devicetype', 'device_family'),
  },
  features: ['tags', 'customFields', 'notes'],
});
