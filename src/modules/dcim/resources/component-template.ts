import type { Row } from '../../../database/db';
import { CustomFilter, model, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { mixin } from '../../../core/resource/mixin';
import { sql } from '../../../database/sql';
import { column } from '../../../database/schema/schema';
import { deviceTypeResource } from './device-type.resource';
import { naturalize } from './naturalize';

/** How the reference names a component template in its messages: "name (label)", or the name. */
export const templateName = (row: Row | null): string => (row ? (row.label ? `${row.name} (${row.label})` : String(row.name)) : '');

/**
 * What every component template has (Nautobot's ComponentTemplateModel): the device type it
 * belongs to (deleted with it), a name unique per device type and sorted naturally, a physical
 * label and a description. A modular template (ModularComponentTemplateModel: all but device
 * bay templates) belongs to a device type or a module type, exactly one of them, with a name
 * unique per module type too.
 */
export const componentTemplate = (o: { modular?: boolean } = {}) => {
  const modular = o.modular !== false;
  return mixin({
    fields: () => ({
      device_type: field.foreignKey(() => deviceTypeResource, modular ? { nullable: true, onDelete: 'cascade' } : { required: true, onDelete: 'cascade' }),
      ...(modular ? { module_type: field.foreignKey(model('dcim.moduletype'), { nullable: true, onDelete: 'cascade' }) } : {}),
      name: field.string({ required: true, maxLength: 255 }),
      label: field.string({ maxLength: 255, help: 'Physical label' }),
      description: field.string({ maxLength: 255 }),
    }),
    first: true,
    columns: { _name: { ...column.string(255), sortable: true } },
    uniqueTogether: [{ fields: ['device_type', 'name'] }, ...(modular ? [{ fields: ['module_type', 'name'] }] : [])],
    search: ['name'],
    filters: modular ? { has_device_type: isSet('device_type_id'), has_module_type: isSet('module_type_id') } : {},
    features: ['customFields'],
    rules: modular ? (s) => oneParent(s, 'device_type', 'module_type') : undefined,
    beforeSave(states) {
      for (const s of states) s.values._name = naturalize(String(s.values.name), 255);
    },
    defaults: modular
      ? { naturalKey: ['device_type', 'module_type', 'name'], ordering: ['device_type_id', 'module_type_id', '_name'], display: (r) => templateName(r), partOf: ['device_type', 'module_type'] }
      : { naturalKey: ['device_type', 'name'], ordering: ['device_type_id', '_name'], display: (r) => templateName(r), partOf: ['device_type'] },
  });
};

/** A `has_<fk>` filter of a forward foreign key: whether it is set. */
export const isSet = (col: string): CustomFilter => ({
  boolean: true,
  compile: (values, _lookup, h) => (values[values.length - 1] ? sql`${h.col(col)} IS NOT NULL` : sql`${h.col(col)} IS NULL`),
});

/** The reference's rule of a modular object: exactly one of its two parents (the serializer's message when both are given, the model's when none). */
export function oneParent(s: WriteState, a: string, b: string): FieldErrors | undefined {
  const hasA = s.values[`${a}_id`] !== null && s.values[`${a}_id`] !== undefined;
  const hasB = s.values[`${b}_id`] !== null && s.values[`${b}_id`] !== undefined;
  if (hasA && hasB) return { non_field_errors: [`Only one of ${a} or ${b} must be set`] };
  if (!hasA && !hasB) return { __all__: [`Either ${a} or ${b} must be set`] };
  return undefined;
}

/**
 * A template pointing at another template (a front port's rear port, an outlet's power port)
 * must belong to the same device type, or module type: the reference's message names the other
 * template and which kind of parent differs.
 */
export function sameDeviceType(s: WriteState, fieldName: string, message: (other: string, parent: 'device type' | 'module type') => string): FieldErrors | undefined {
  const other = s.related(fieldName);
  if (!other) return undefined;
  const differs = (key: string) => s.values[key] !== null && s.values[key] !== undefined && String(other[key] ?? '') !== String(s.values[key]);
  if (differs('device_type_id')) return { __all__: [message(templateName(other), 'device type')] };
  if (differs('module_type_id')) return { __all__: [message(templateName(other), 'module type')] };
  return undefined;
}
