import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';

/** A company that makes hardware (Juniper, Dell): device types, platforms and inventory items name it. */
export const manufacturerResource = defineResource({
  app: 'dcim',
  model: 'manufacturer',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'manufacturers',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255 }),
    cloud_account_count: field.count('cloud.cloudaccount', 'provider'),
    device_type_count: field.count('dcim.devicetype', 'manufacturer'),
    inventory_item_count: field.count('dcim.inventoryitem', 'manufacturer'),
    platform_count: field.count('dcim.platform', 'manufacturer'),
  },
  features: ['customFields', 'notes'],
});
