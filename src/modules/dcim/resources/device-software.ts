import { CustomFilter, model } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { mixin } from '../../../core/resource/mixin';
import { visibleIds } from '../../../core/resource/query/scope';
import { ident, inList, sql } from '../../../database/sql';
import { storedBoolean } from '../../../core/resource/serialize/values';

/** `has_<fk>=true|false`: the foreign key is set, or not. */
export const isSet = (column: string): CustomFilter => ({
  boolean: true,
  compile: (values, _l, h) => (values[values.length - 1] ? sql`${h.col(column)} IS NOT NULL` : sql`${h.col(column)} IS NULL`),
});

/**
 * The software an object runs (a device, an inventory item, a virtual machine): its version and
 * the image files that override the version's, as the reference declares them on each.
 */
export function softwareFields(o: { related: string; link: string; source: string; what: string }) {
  return {
    software_version: field.foreignKey(model('dcim.softwareversion'), { nullable: true, onDelete: 'protect', relatedName: o.related, help: `The software version installed on this ${o.what}` }),
    software_image_files: field.manyToMany(
      model('dcim.softwareimagefile'),
      { table: o.link, source: o.source, target: 'softwareimagefile_id' },
      { writable: true, relatedName: o.related, label: 'Software Image Files', help: `Override the software image files associated with the software version for this ${o.what}` },
    ),
  };
}

/**
 * What a device runs and which groups it belongs to: its software version and the image files
 * that override the version's (each a default image or one of the device type's), its device
 * redundancy group with a priority there (which needs a group), and the controller managed
 * device group that holds it (filter `controller` by the group's controller).
 */
export const deviceSoftwareMixin = () =>
  mixin({
    fields: () => ({
      device_redundancy_group: field.foreignKey(model('dcim.deviceredundancygroup'), { nullable: true, onDelete: 'setNull', relatedName: 'devices', label: 'Device Redundancy Group' }),
      device_redundancy_group_priority: field.integer({
        nullable: true,
        minValue: 1,
        maxValue: 32767,
        label: 'Device Redundancy Group Priority',
        help: 'The priority the device has in the device redundancy group.',
      }),
      ...softwareFields({ related: 'devices', link: 'dcim_device_software_image_files', source: 'device_id', what: 'device' }),
      controller_managed_device_group: field.foreignKey(model('dcim.controllermanageddevicegroup'), { nullable: true, onDelete: 'setNull', relatedName: 'devices' }),
    }),
    filterAliases: { controller: 'controller_managed_device_group__controller' },
    filters: { has_software_version: isSet('software_version_id') },
    async rules(s, w): Promise<FieldErrors | void> {
      if (s.values.device_redundancy_group_priority !== null && s.values.device_redundancy_group_priority !== undefined && !s.values.device_redundancy_group_id) {
        return { device_redundancy_group_priority: ['Must assign a redundancy group when defining a redundancy group priority.'] };
      }
      // The reference checks the image files a device already has against its device type
      // (Device.clean cannot see a many-to-many being written): a new set is taken as given
      // (the Ansible collection relies on it), a device type changed under stored files is checked.
      if (s.create || s.touched.has('software_image_files') || !s.touched.has('device_type')) return;
      const files = await s.linked('software_image_files');
      if (!files.length || !s.values.device_type_id) return;
      // One statement: the files that are neither a default image nor the device type's.
      const rows = await w.exec.query<{ file: string; is_default: unknown; alias: string | null; version: string; version_id: string; platform: string; platform_id: string; model: string; mapped: unknown }>(
        sql`SELECT f.${ident('image_file_name')} AS ${ident('file')}, f.${ident('default_image')} AS ${ident('is_default')}, v.${ident('alias')} AS ${ident('alias')},
              v.${ident('version')} AS ${ident('version')}, v.${ident('id')} AS ${ident('version_id')}, p.${ident('name')} AS ${ident('platform')}, p.${ident('id')} AS ${ident('platform_id')}, t.${ident('model')} AS ${ident('model')},
              (SELECT COUNT(*) FROM ${ident('dcim_devicetypetosoftwareimagefile')} x WHERE x.${ident('software_image_file_id')} = f.${ident('id')} AND x.${ident('device_type_id')} = t.${ident('id')}) AS ${ident('mapped')}
            FROM ${ident('dcim_softwareimagefile')} f
            JOIN ${ident('dcim_softwareversion')} v ON v.${ident('id')} = f.${ident('software_version_id')}
            JOIN ${ident('dcim_platform')} p ON p.${ident('id')} = v.${ident('platform_id')}
            JOIN ${ident('dcim_devicetype')} t ON t.${ident('id')} = ${s.values.device_type_id}
            WHERE ${inList(ident('f', 'id'), files)} ORDER BY f.${ident('image_file_name')}`,
      );
      const bad = rows.find((r) => !storedBoolean(r.is_default) && !Number(r.mapped));
      if (!bad) return;
      // The reference's str()s (a device type's is its model), naming only what the requester may view.
      const seen = async (type: string, id: unknown) => (await visibleIds(w.ctx, w.exec, model(type)(), [id])).has(String(id));
      const type = (await seen('dcim.devicetype', s.values.device_type_id)) ? `device type ${bad.model}` : "this device's device type";
      if (!(await seen('dcim.softwareversion', bad.version_id))) return { software_image_files: [`Software image file ${bad.file} is not valid for ${type}.`] };
      const version = bad.alias ? bad.alias : `${(await seen('dcim.platform', bad.platform_id)) ? bad.platform : ''} - ${bad.version}`;
      return { software_image_files: [`Software image file ${version} - ${bad.file} for version '${version}' is not valid for ${type}.`] };
    },
  });
