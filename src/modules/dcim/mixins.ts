import { objectType, ResourceDefinition, WriteContext } from '../../core/resource/definition';
import type { FieldErrors } from '../../core/resource/errors';
import { field } from '../../core/resource/fields';
import { mixin } from '../../core/resource/mixin';
import { descendantIds } from '../../core/resource/query/tree';
import type { Row } from '../../database/db';
import { ident, sql } from '../../database/sql';
import { locationResource } from './resources/location.resource';

/**
 * A location (Nautobot's `location` foreign key on a model with the `locations` feature): the
 * filter includes the location's descendants, and the location's type must list the model's
 * content type, with the reference's message ("Racks may not associate to locations of type
 * "Campus"."; `message` where the model's wording differs). Required unless `{ nullable: true }`.
 */
export const locatedMixin = (o: { nullable?: boolean; onDelete?: 'protect' | 'cascade'; message?: (typeName: string) => string } = {}) => {
  let self: (() => ResourceDefinition) | undefined;
  return mixin({
    fields: (s) => {
      self = s;
      return {
        location: field.foreignKey(() => locationResource, {
          ...(o.nullable ? { nullable: true } : { required: true }),
          onDelete: o.onDelete ?? 'protect',
          tree: true,
        }),
      };
    },
    features: ['locations'],
    async rules(s, w) {
      const location = s.related('location');
      if (!location || !self || !(s.create || s.touched.has('location'))) return;
      const def = self();
      if (await locationTypeAllows(w, location, objectType(def))) return;
      const typeName = await locationTypeName(w, String(location.location_type_id));
      const plural = def.verboseNamePlural;
      return { location: [o.message?.(typeName) ?? `${plural.charAt(0).toUpperCase()}${plural.slice(1)} may not associate to locations of type "${typeName}".`] } as FieldErrors;
    },
  });
};

/** Whether a location's type lists the content type (once per type and request). */
export function locationTypeAllows(w: WriteContext, location: Row, contentType: string): Promise<boolean> {
  return w.ctx.memo(`dcim.locationtype-allows:${location.location_type_id}:${contentType}`, async () => {
    const rows = await w.exec.query(
      sql`SELECT 1 AS x FROM ${ident('dcim_locationtype_content_types')} WHERE ${ident('locationtype_id')} = ${location.location_type_id} AND ${ident('content_type')} = ${contentType}`,
    );
    return rows.length > 0;
  });
}

function locationTypeName(w: WriteContext, id: string): Promise<string> {
  return w.ctx.memo(`dcim.locationtype-name:${id}`, async () => {
    const [row] = await w.exec.query<{ name: string }>(sql`SELECT ${ident('name')} FROM ${ident('dcim_locationtype')} WHERE ${ident('id')} = ${id}`);
    return row?.name ?? '';
  });
}

/** Whether `locationId` is `ancestorId` or one of its descendants (Nautobot's `x in location.ancestors(include_self=True)`). */
export async function withinLocation(w: WriteContext, ancestorId: unknown, locationId: unknown): Promise<boolean> {
  if (ancestorId === null || ancestorId === undefined || locationId === null || locationId === undefined) return true;
  if (String(ancestorId) === String(locationId)) return true;
  const below = await w.ctx.memo(`dcim.location-subtree:${ancestorId}`, () => descendantIds(w.exec, locationResource, [String(ancestorId)]));
  return below.includes(String(locationId));
}

/** A location's name, for messages (Nautobot's str(location)). */
export function locationName(w: WriteContext, id: unknown): Promise<string> {
  return w.ctx.memo(`dcim.location-name:${id}`, async () => {
    const [row] = await w.exec.query<{ name: string }>(sql`SELECT ${ident('name')} FROM ${ident('dcim_location')} WHERE ${ident('id')} = ${id}`);
    return row?.name ?? '';
  });
}
