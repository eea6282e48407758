import type { Row } from '../../../database/db';
import { sql } from '../../../database/sql';
import type { WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { mixin } from '../../../core/resource/mixin';
import { column } from '../../../database/schema/schema';
import { deviceTypeResource } from './device-type.resource';
import { naturalize } from './naturalize';

/** How the reference names a component template in its messages: "name (label)", or the name. */
export const templateName = (row: Row | null): string => (row ? (row.label ? `${row.name} (${row.label})` : String(row.name)) : '');

/**
 * What every component template of a device type has (Nautobot's ComponentTemplateModel): the
 * device type it belongs to (deleted with it), a name unique per device type and sorted
 * naturally, a physical label and a description. The reference also lets a template belong to
 * a module type instead; module types are not modelled yet, so `device_type` is required.
 */
export const componentTemplate = () =>
  mixin({
    fields: () => ({
      device_type: field.foreignKey(() => deviceTypeResource, { required: true, onDelete: 'cascade' }),
      name: field.string({ required: true, maxLength: 255 }),
      label: field.string({ maxLength: 255, help: 'Physical label' }),
      description: field.string({ maxLength: 255 }),
    }),
    first: true,
    columns: { _name: { ...column.string(255), sortable: true } },
    uniqueTogether: [{ fields: ['device_type', 'name'] }],
    search: ['name'],
    filters: {
      /** Templates of a device type rather than of a module type: all of them, until module types exist. */
      has_device_type: { boolean: true, compile: (values, _lookup, h) => (values[values.length - 1] ? sql`${h.col('device_type_id')} IS NOT NULL` : sql`${h.col('device_type_id')} IS NULL`) },
    },
    features: ['customFields'],
    beforeSave(states) {
      for (const s of states) s.values._name = naturalize(String(s.values.name), 255);
    },
    defaults: { naturalKey: ['device_type', 'name'], ordering: ['device_type_id', '_name'], display: (r) => templateName(r) },
  });

/**
 * A template pointing at another template (a front port's rear port, an outlet's power port)
 * must belong to the same device type: the reference's message names the other template.
 */
export function sameDeviceType(s: WriteState, fieldName: string, message: (other: string) => string): FieldErrors | undefined {
  const other = s.related(fieldName);
  if (!other || String(other.device_type_id) === String(s.values.device_type_id)) return undefined;
  return { __all__: [message(templateName(other))] };
}
