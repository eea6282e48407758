import { sql, ident } from '../../../database/sql';
import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named, tree } from '../../../core/resource/mixin';

const RESERVED = ['rackgroup', 'rackgroups', 'rack group', 'rack groups'];

export const locationTypeResource = defineResource({
  app: 'dcim',
  model: 'locationtype',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'location-types',
  verboseName: 'location type',
  mixins: [named(), tree()],
  fields: {
    description: field.string({ maxLength: 200 }),
    nestable: field.boolean({ help: 'Allow Locations of this type to be parents/children of other Locations of this same type' }),
    content_types: field.contentTypes({ table: 'dcim_locationtype_content_types', source: 'locationtype_id' }, (d) => d.features.includes('locations'), {
      label: 'Content types',
      help: 'The object type(s) that can be associated to a Location of this type.',
    }),
  },
  search: ['description'],
  features: ['customFields', 'notes'],
  async rules(s, { exec }) {
    const errors: Record<string, string[]> = {};
    if (RESERVED.includes(String(s.values.name).toLowerCase())) errors.name = ['This name is reserved for future use.'];
    if (s.existing) {
      const id = s.existing.id;
      if (s.existing.nestable && !s.values.nestable) {
        const nested = await exec.query(
          sql`SELECT 1 FROM ${ident('dcim_location')} l JOIN ${ident('dcim_location')} p ON p.${ident('id')} = l.${ident('parent_id')} WHERE l.${ident('location_type_id')} = ${id} AND p.${ident('location_type_id')} = ${id} LIMIT 1`,
        );
        if (nested.length) errors.nestable = ['There are existing nested Locations of this type, so changing this Location Type to be non-nestable is not permitted.'];
      }
      if (String(s.existing.parent_id ?? '') !== String(s.values.parent_id ?? '')) {
        const used = await exec.query(sql`SELECT 1 FROM ${ident('dcim_location')} WHERE ${ident('location_type_id')} = ${id} LIMIT 1`);
        if (used.length) errors.parent = ['This LocationType currently has Locations using it, therefore its parent cannot be changed at this time.'];
      }
    }
    return errors;
  },
});
