import { defineResource, model, WriteContext } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { visibleIds } from '../../../core/resource/query/scope';
import { field } from '../../../core/resource/fields';
import { ident, sql } from '../../../database/sql';
import { isSet } from './component-template';
import { componentName, deviceComponent } from './device-component';

/** A device row with its type's model and subdevice role, for the bay rules' messages: read once per device and request (bays of a batch share a few devices). */
function deviceWithType(w: WriteContext, id: unknown) {
  return w.ctx.memo(`dcim.bay-device:${id}`, async () => {
    const [row] = await w.exec.query<{ name: string | null; id: string; model: string; subdevice_role: string }>(
      sql`SELECT d.${ident('id')} AS ${ident('id')}, d.${ident('name')} AS ${ident('name')}, t.${ident('model')} AS ${ident('model')}, t.${ident('subdevice_role')} AS ${ident('subdevice_role')}
          FROM ${ident('dcim_device')} d JOIN ${ident('dcim_devicetype')} t ON t.${ident('id')} = d.${ident('device_type_id')} WHERE d.${ident('id')} = ${id}`,
    );
    return row;
  });
}

/**
 * An empty space in a parent device that can house one child device. The reference also moves
 * an installed child with its parent (location, rack); that follows when a parent is saved.
 */
export const deviceBayResource = defineResource({
  app: 'dcim',
  model: 'devicebay',
  slug: 'device-bays',
  verboseName: 'device bay',
  mixins: [deviceComponent()],
  fields: {
    installed_device: field.foreignKey(model('dcim.device'), { nullable: true, onDelete: 'setNull', relatedName: 'parent_bay' }),
  },
  // One bay per installed device (a one-to-one); the rule below says which bay holds it.
  uniqueTogether: [{ fields: ['installed_device'], field: 'installed_device', message: 'Device bay with this Installed device already exists.' }],
  async rules(s, w): Promise<FieldErrors | void> {
    const { exec } = w;
    const device = await deviceWithType(w, s.values.device_id);
    if (device && device.subdevice_role !== 'parent') return { __all__: [`This type of device (${device.model}) does not support device bays.`] };
    const installed = s.values.installed_device_id;
    if (!installed) return;
    if (String(installed) === String(s.values.device_id)) return { __all__: ['Cannot install a device into itself.'] };
    const [current] = await exec.query(sql`SELECT ${ident('id')}, ${ident('name')}, ${ident('label')} FROM ${ident('dcim_devicebay')} WHERE ${ident('installed_device_id')} = ${installed} AND ${ident('id')} <> ${s.values.id}`);
    if (current) {
      // The other bay is named only where the requester may view it.
      const where = (await visibleIds(w.ctx, exec, deviceBayResource, [current.id])).has(String(current.id)) ? componentName(current) : 'a device bay you may not view';
      return { installed_device: [`Cannot install the specified device; device is already installed in ${where}`] };
    }
    const child = await deviceWithType(w, installed);
    if (child && child.subdevice_role !== 'child') {
      return { installed_device: [`Cannot install device "${child.name ?? child.id}"; device-type "${child.model}" subdevice_role is not "child".`] };
    }
  },
});

/**
 * A slot for modules in a device or in a module (nested modules); a module family says which
 * modules fit. The reference's natural key is the id. A blank position takes the bay's name.
 * A bay of a module displays as "<module type> (<bay>)" (the reference: the module's display).
 */
export const moduleBayResource = defineResource({
  app: 'dcim',
  model: 'modulebay',
  slug: 'module-bays',
  verboseName: 'module bay',
  naturalKey: ['id'],
  display: (r, h) => `${h.related('parent_device')?.name ?? h.related('parent_module')?.module_type__model ?? ''} (${r.name})`,
  displayUses: { parent_device: ['name'], parent_module: ['module_type__model'] },
  mixins: [deviceComponent({ device: 'parent_device', module: 'parent_module' })],
  fields: {
    module_family: field.foreignKey(model('dcim.modulefamily'), { nullable: true, onDelete: 'protect', help: 'Module family that can be installed in this bay' }),
    requires_first_party_modules: field.boolean({ help: 'This bay will only accept modules from the same manufacturer as the parent device or module' }),
    position: field.string({ maxLength: 255, help: 'The position of the module bay within the parent device/module' }),
  },
  search: ['position', 'parent_device__name', 'parent_module__module_type__manufacturer__name', 'parent_module__module_type__model'],
  filters: { has_parent_device: isSet('parent_device_id'), has_parent_module: isSet('parent_module_id') },
  beforeSave(states) {
    for (const s of states) if (!s.values.position) s.values.position = s.values.name;
  },
});
