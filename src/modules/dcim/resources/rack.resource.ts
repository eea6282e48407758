import { defineResource } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import type { Row } from '../../../database/db';
import { column } from '../../../database/schema/schema';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { RACK_DIMENSION_UNITS, RACK_STATUSES, RACK_TYPES, RACK_U_HEIGHT_DEFAULT, RACK_U_HEIGHT_MAXIMUM, RACK_WIDTHS } from '../choices';
import { locatedMixin, locationName, withinLocation } from '../mixins';
import { minimumRackHeight } from '../rack-space';
import { naturalize } from './naturalize';
import { rackGroupResource } from './rack-group.resource';

const SMALL = 32767;
/** An optional text that is part of a unique key: blank is stored as null, so blanks never collide. */
const blankAsNull = (v: unknown) => (v === '' ? null : v);

/** A rack (frame or cabinet) of `u_height` units in a location, optionally in a rack group of that location or above it. */
export const rackResource = defineResource({
  app: 'dcim',
  model: 'rack',
  // Read by a location's counts or every model's tags: kept with a detail (serialize/kept-values.ts).
  watched: true,
  slug: 'racks',
  naturalKey: ['name', 'rack_group'],
  ordering: ['location', 'rack_group', '_name'],
  display: (r) => (r.facility_id ? `${r.name} (${r.facility_id})` : r.name),
  mixins: [statusMixin({ defaults: RACK_STATUSES }), roleMixin(), tenancyMixin(), locatedMixin()],
  columns: { _name: { ...column.string(255), sortable: true } },
  indexes: [['_name']],
  fields: {
    name: field.string({ required: true, maxLength: 255, index: true }),
    facility_id: field.string({ maxLength: 50, nullable: true, normalize: blankAsNull, label: 'Facility ID', help: 'Locally-assigned identifier' }),
    rack_group: field.foreignKey(() => rackGroupResource, { nullable: true, onDelete: 'setNull', tree: true, help: 'Assigned group' }),
    serial: field.string({ maxLength: 255, index: true, label: 'Serial number' }),
    asset_tag: field.string({ maxLength: 255, nullable: true, unique: true, normalize: blankAsNull, label: 'Asset tag', help: 'A unique tag used to identify this rack' }),
    type: field.choice(RACK_TYPES, { maxLength: 50 }),
    width: field.choice(RACK_WIDTHS, { default: 19, help: 'Rail-to-rail width (in inches)' }),
    u_height: field.integer({ default: RACK_U_HEIGHT_DEFAULT, minValue: 1, maxValue: RACK_U_HEIGHT_MAXIMUM, label: 'Height (U)', help: 'Height in rack units' }),
    desc_units: field.boolean({ label: 'Descending units', help: 'Units are numbered top-to-bottom' }),
    outer_width: field.integer({ nullable: true, minValue: 0, maxValue: SMALL, help: 'Outer dimension of rack (width)' }),
    outer_depth: field.integer({ nullable: true, minValue: 0, maxValue: SMALL, help: 'Outer dimension of rack (depth)' }),
    outer_unit: field.choice(RACK_DIMENSION_UNITS, { maxLength: 50 }),
    comments: field.text(),
    device_count: field.count('dcim.device', 'rack'),
    power_feed_count: field.count('dcim.powerfeed', 'rack'),
  },
  uniqueTogether: [{ fields: ['rack_group', 'name'] }, { fields: ['rack_group', 'facility_id'] }],
  search: ['name', 'facility_id', 'serial', 'asset_tag', 'comments'],
  features: ['tags', 'customFields', 'notes'],
  async rules(s, w) {
    const errors: FieldErrors = {};
    const group = s.related('rack_group');
    if (group && (s.create || s.touched.has('rack_group') || s.touched.has('location')) && !(await withinLocation(w, group.location_id, s.values.location_id))) {
      const [theirs, here] = await Promise.all([locationName(w, group.location_id), locationName(w, s.values.location_id)]);
      errors.rack_group = [`The assigned rack group "${group.name}" belongs to a location ("${theirs}") that does not include location "${here}".`];
    }
    if (s.existing && s.touched.has('u_height') && Number(s.values.u_height) < Number(s.existing.u_height)) {
      const minimum = await minimumRackHeight(w.exec, String(s.existing.id));
      if (Number(s.values.u_height) < minimum) errors.u_height = [`Rack must be at least ${minimum}U tall to house currently installed devices.`];
    }
    if ((s.values.outer_width !== null || s.values.outer_depth !== null) && !s.values.outer_unit) {
      errors.non_field_errors = ['Must specify a unit when setting an outer width/depth'];
    }
    return errors;
  },
  beforeSave(states) {
    for (const s of states) {
      s.values._name = naturalize(String(s.values.name), 255);
      if (s.values.outer_width === null && s.values.outer_depth === null) s.values.outer_unit = '';
    }
  },
});

/** A rack's unit numbers, top of the elevation first (Nautobot's `Rack.units`). */
export function rackUnits(rack: Row): number[] {
  const height = Number(rack.u_height);
  const units = Array.from({ length: height }, (_, i) => i + 1);
  const desc = rack.desc_units === true || rack.desc_units === 1 || rack.desc_units === '1';
  return desc ? units : units.reverse();
}
