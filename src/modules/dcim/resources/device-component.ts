import type { Row } from '../../../database/db';
import { model, WriteContext, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { mixin } from '../../../core/resource/mixin';
import { FALSE, inList, sql } from '../../../database/sql';
import { column } from '../../../database/schema/schema';
import { componentDevice, MODULE_DEPTH, modulesInDevices } from '../module-tree';
import { naturalize } from './naturalize';
import { oneParent, templateName } from './component-template';

/** How the reference names a component in its messages: "name (label)", or the name. */
export const componentName = templateName;

/**
 * What every component of a device has (Nautobot's ComponentModel): the device it belongs to
 * (deleted with it), a name unique per device and sorted naturally (`Ethernet1/2` before
 * `Ethernet1/10`), a physical label and a description; filters by the device (name or id) and
 * its location (tree). `device` names the foreign key (a module bay's is `parent_device`).
 * `module` names the foreign key to a module for a modular component (ModularComponentModel:
 * ports, outlets, interfaces; a module bay's `parent_module`): it belongs to a device or a
 * module, exactly one, with a name unique per module too, and its `device` filter also finds
 * the components of the modules installed in the device.
 * `uniqueName: false`: names repeat on a device (inventory items are unique per parent item).
 */
export const deviceComponent = (o: { device?: string; module?: string; uniqueName?: boolean } = {}) => {
  const device = o.device ?? 'device';
  const mod = o.module;
  return mixin({
    fields: () => ({
      // The unique (device, name) key leads with the column: no index of its own.
      [device]: field.foreignKey(model('dcim.device'), { ...(mod ? { nullable: true } : { required: true }), onDelete: 'cascade', index: false }),
      ...(mod ? { [mod]: field.foreignKey(model('dcim.module'), { nullable: true, onDelete: 'cascade', index: false }) } : {}),
      name: field.string({ required: true, maxLength: 255, index: true }),
      label: field.string({ maxLength: 255, help: 'Physical label' }),
      description: field.string({ maxLength: 255 }),
    }),
    first: true,
    columns: { _name: { ...column.string(255), sortable: true } },
    // A device's components in the list's order (device, name, id): a page of them is one index range, no sort.
    indexes: [[`${device}_id`, '_name', 'id'], ...(mod ? [[`${mod}_id`, '_name', 'id']] : [])],
    uniqueTogether: o.uniqueName === false ? [] : [{ fields: [device, 'name'] }, ...(mod ? [{ fields: [mod, 'name'] }] : [])],
    search: ['name', 'label', 'description'],
    filterAliases: { location: `${device}__location`, [`${device}_id`]: device },
    filters: mod && device === 'device' ? { device: deviceOrItsModules(MODULE_DEPTH - 1) } : {},
    features: ['tags', 'customFields', 'notes'],
    rules: mod ? (s) => oneParent(s, device, mod) : undefined,
    beforeSave(states) {
      for (const s of states) s.values._name = naturalize(String(s.values.name), 255);
    },
    defaults: { naturalKey: mod ? [device, mod, 'name'] : [device, 'name'], ordering: [`${device}_id`, '_name'], display: (r: Row) => componentName(r), partOf: mod ? [device, mod] : [device] },
  });
};

/**
 * The `device` filter of a modular component (name or id): the device's own components and,
 * in a query, those of the modules installed in it down to `depth` levels (the reference's
 * filter_device). A permission constraint on `device` stays exact.
 */
export function deviceOrItsModules(depth: number) {
  return {
    lookups: ['', 'n'],
    compile: async (values: unknown[], _l: string, h: import('../../../core/resource/definition').CustomFilterHelpers) => {
      const ids = await h.resolveIds(model('dcim.device')(), values);
      if (!ids.length) return FALSE;
      const own = inList(h.col('device_id'), ids);
      if (h.mode !== 'query') return own;
      return sql`(${own} OR ${h.col('module_id')} IN (${await modulesInDevices(h, ids, depth)}))`;
    },
  };
}

/**
 * A component pointing at another (a front port's rear port, an outlet's power port): when the
 * component has a device (its own or its module's), the other must have the same one; the
 * reference's message names it.
 */
export async function sameDevice(s: WriteState, w: WriteContext, fieldName: string, message: (other: string) => string, key = '__all__'): Promise<FieldErrors | undefined> {
  const other = s.related(fieldName);
  if (!other) return undefined;
  const mine = await componentDevice(w, s.values);
  if (!mine || mine === (await componentDevice(w, other))) return undefined;
  return { [key]: [message(componentName(other))] };
}
