import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { tree } from '../../../core/resource/mixin';
import { deviceComponent } from './device-component';
import { softwareFields } from './device-software';
import { manufacturerResource } from './manufacturer.resource';

/** An optional text that is part of a unique key: blank is stored as null, so blanks never collide. */
const blankAsNull = (v: unknown) => (v === '' ? null : v);

/**
 * A serialized piece of hardware within a device (a line card, a power supply), for inventory
 * only, as a tree under the device: names are unique per parent item. The reference's natural
 * key is the id; its software version waits for software versions.
 */
export const inventoryItemResource = defineResource({
  app: 'dcim',
  model: 'inventoryitem',
  slug: 'inventory-items',
  verboseName: 'inventory item',
  naturalKey: ['id'],
  ordering: ['_name'],
  mixins: [deviceComponent({ uniqueName: false }), tree()],
  indexes: [['_name']],
  fields: {
    manufacturer: field.foreignKey(() => manufacturerResource, { nullable: true, onDelete: 'protect', relatedName: 'inventory_items' }),
    ...softwareFields({ related: 'inventory_items', link: 'dcim_inventoryitem_software_image_files', source: 'inventoryitem_id', what: 'inventory item' }),
    part_id: field.string({ maxLength: 255, label: 'Part ID', help: 'Manufacturer-assigned part identifier' }),
    serial: field.string({ maxLength: 255, index: true, label: 'Serial number' }),
    asset_tag: field.string({ maxLength: 255, nullable: true, unique: true, normalize: blankAsNull, label: 'Asset tag', help: 'A unique tag used to identify this item' }),
    discovered: field.boolean({ help: 'This item was automatically discovered' }),
  },
  uniqueTogether: [{ fields: ['device', 'parent', 'name'] }],
  search: ['part_id', 'serial', 'asset_tag'],
});
