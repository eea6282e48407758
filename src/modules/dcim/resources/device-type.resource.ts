import { ident, sql } from '../../../database/sql';
import { defineResource, model } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { SUBDEVICE_ROLES } from '../component-choices';
import { typeHeightError } from '../rack-space';
import { deviceFamilyResource } from './device-family.resource';
import { manufacturerResource } from './manufacturer.resource';

/**
 * A make and model of hardware (Juniper EX4300-48T): its height, depth and parent/child role,
 * and the component templates from which its devices get their ports and bays. The reference's
 * front and rear images (file uploads) are not modelled.
 */
export const deviceTypeResource = defineResource({
  app: 'dcim',
  model: 'devicetype',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'device-types',
  verboseName: 'device type',
  naturalKey: ['manufacturer', 'model'],
  filterName: 'model',
  ordering: ['manufacturer', 'model'],
  display: (r, h) => `${h.related('manufacturer')?.name ?? ''} ${r.model}`,
  displayUses: { manufacturer: ['name'] },
  fields: {
    manufacturer: field.foreignKey(() => manufacturerResource, { required: true, onDelete: 'protect' }),
    device_family: field.foreignKey(() => deviceFamilyResource, { nullable: true, onDelete: 'protect' }),
    model: field.string({ required: true, maxLength: 255 }),
    part_number: field.string({ maxLength: 255, help: 'Discrete part number (optional)' }),
    u_height: field.integer({ default: 1, minValue: 0, maxValue: 32767, label: 'Height (U)' }),
    is_full_depth: field.boolean({ default: true, label: 'Is full depth', help: 'Device consumes both front and rear rack faces' }),
    subdevice_role: field.choice(SUBDEVICE_ROLES, {
      maxLength: 50,
      label: 'Parent/child status',
      help: 'Parent devices house child devices in device bays. Leave blank if this device type is neither a parent nor a child.',
    }),
    // Set through device-types-to-software-image-files (read-only here, as the reference shows it).
    software_image_files: field.manyToMany(model('dcim.softwareimagefile'), { table: 'dcim_devicetypetosoftwareimagefile', source: 'device_type_id', target: 'software_image_file_id' }, { readOnly: true, relatedName: 'device_types', label: 'Software Image Files' }),
    comments: field.text(),
    device_count: field.count('dcim.device', 'device_type'),
  },
  uniqueTogether: [{ fields: ['manufacturer', 'model'] }],
  search: ['manufacturer__name', 'device_family__name', 'model', 'part_number', 'comments'],
  // The reference's "has components" filters, named after the components a device gets.
  filterAliases: {
    console_ports: 'has_console_port_templates',
    console_server_ports: 'has_console_server_port_templates',
    power_ports: 'has_power_port_templates',
    power_outlets: 'has_power_outlet_templates',
    interfaces: 'has_interface_templates',
    pass_through_ports: 'has_front_port_templates',
    device_bays: 'has_device_bay_templates',
  },
  features: ['tags', 'customFields', 'notes'],
  async rules(s, { exec }): Promise<FieldErrors | void> {
    const role = s.values.subdevice_role;
    if (s.existing && s.touched.has('u_height')) {
      const maker = s.related('manufacturer');
      const type = { id: String(s.existing.id), model: String(s.values.model), manufacturerId: String(s.values.manufacturer_id), manufacturer: String(maker?.name ?? ''), height: Number(s.values.u_height), fullDepth: [true, 1, '1'].includes(s.values.is_full_depth as never) };
      const error = await typeHeightError(exec, type, Number(s.existing.u_height));
      if (error) return { u_height: [error] };
    }
    if (s.existing && role !== 'parent' && s.existing.subdevice_role === 'parent') {
      const bays = await exec.query(sql`SELECT 1 FROM ${ident('dcim_devicebaytemplate')} WHERE ${ident('device_type_id')} = ${s.existing.id} LIMIT 1`);
      if (bays.length) return { subdevice_role: ['Must delete all device bay templates associated with this device before declassifying it as a parent device.'] };
    }
    if (Number(s.values.u_height) && role === 'child') return { u_height: ['Child device types must be 0U.'] };
  },
});
