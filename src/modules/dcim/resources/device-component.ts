import type { Row } from '../../../database/db';
import { model, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { mixin } from '../../../core/resource/mixin';
import { column } from '../../../database/schema/schema';
import { naturalize } from './naturalize';
import { templateName } from './component-template';

/** How the reference names a component in its messages: "name (label)", or the name. */
export const componentName = templateName;

/**
 * What every component of a device has (Nautobot's ComponentModel): the device it belongs to
 * (deleted with it), a name unique per device and sorted naturally (`Ethernet1/2` before
 * `Ethernet1/10`), a physical label and a description; filters by the device (name or id) and
 * its location (tree). `device` names the foreign key (a module bay's is `parent_device`). The
 * reference also lets a component belong to a module instead; modules are not modelled yet.
 * `uniqueName: false`: names repeat on a device (inventory items are unique per parent item).
 */
export const deviceComponent = (o: { device?: string; uniqueName?: boolean } = {}) => {
  const device = o.device ?? 'device';
  return mixin({
    fields: () => ({
      // The unique (device, name) key leads with the column: no index of its own.
      [device]: field.foreignKey(model('dcim.device'), { required: true, onDelete: 'cascade', index: false }),
      name: field.string({ required: true, maxLength: 255, index: true }),
      label: field.string({ maxLength: 255, help: 'Physical label' }),
      description: field.string({ maxLength: 255 }),
    }),
    first: true,
    columns: { _name: { ...column.string(255), sortable: true } },
    // A device's components in the list's order (device, name, id): a page of them is one index range, no sort.
    indexes: [[`${device}_id`, '_name', 'id']],
    uniqueTogether: o.uniqueName === false ? [] : [{ fields: [device, 'name'] }],
    search: ['name', 'label', 'description'],
    filterAliases: { location: `${device}__location`, [`${device}_id`]: device },
    features: ['tags', 'customFields', 'notes'],
    beforeSave(states) {
      for (const s of states) s.values._name = naturalize(String(s.values.name), 255);
    },
    defaults: { naturalKey: [device, 'name'], ordering: [`${device}_id`, '_name'], display: (r: Row) => componentName(r) },
  });
};

/**
 * A component pointing at another of the same device (a front port's rear port, an outlet's
 * power port): the other must belong to the same device; the reference's message names it.
 */
export function sameDevice(s: WriteState, fieldName: string, message: (other: string) => string, key = '__all__'): FieldErrors | undefined {
  const other = s.related(fieldName);
  if (!other || String(other.device_id) === String(s.values.device_id)) return undefined;
  return { [key]: [message(componentName(other))] };
}
