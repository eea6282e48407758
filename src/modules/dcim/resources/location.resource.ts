import { defineResource, WriteContext } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import type { Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import { descendantIds } from '../../../core/resource/query/tree';
import { column } from '../../../database/schema/schema';
import { tree } from '../../../core/resource/mixin';
import { statusMixin } from '../../extras/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { locationTypeResource } from './location-type.resource';
import { naturalize } from './naturalize';

const TIME_ZONES = new Set<string>([...Intl.supportedValuesOf('timeZone'), 'UTC']);

export const locationResource = defineResource({
  app: 'dcim',
  model: 'location',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'locations',
  naturalKey: ['name', 'parent'],
  ordering: ['_name'],
  display: (r) => r.name,
  mixins: [tree(), statusMixin(), tenancyMixin()],
  columns: { _name: { ...column.string(255), sortable: true } },
  indexes: [['_name'], ['name']],
  fields: {
    time_zone: field.string({
      maxLength: 50,
      validate: (v: string) => (v === '' || TIME_ZONES.has(v) ? undefined : `"${v}" is not a valid time zone.`),
    }),
    circuit_count: field.count('circuits.circuittermination', 'location'),
    device_count: field.count('dcim.device', 'location'),
    prefix_count: field.count('ipam.prefix', 'locations'),
    rack_count: field.count('dcim.rack', 'location'),
    // Virtual machines are where their cluster is.
    virtual_machine_count: field.count('virtualization.virtualmachine', 'cluster__location'),
    vlan_count: field.count('ipam.vlan', 'locations'),
    name: field.string({ required: true, maxLength: 100 }),
    description: field.string({ maxLength: 200 }),
    facility: field.string({ maxLength: 50, help: 'Local facility ID or description' }),
    asn: field.integer({ minValue: 1, maxValue: 4294967295, nullable: true, label: 'ASN', help: '32-bit autonomous system number' }),
    physical_address: field.text(),
    shipping_address: field.text(),
    latitude: field.decimal({ maxDigits: 8, decimalPlaces: 6, nullable: true, help: 'GPS coordinate (latitude)', minValue: -90, maxValue: 90 }),
    longitude: field.decimal({ maxDigits: 9, decimalPlaces: 6, nullable: true, help: 'GPS coordinate (longitude)', minValue: -180, maxValue: 180 }),
    contact_name: field.string({ maxLength: 100 }),
    contact_phone: field.string({ maxLength: 50 }),
    contact_email: field.email({ maxLength: 254, label: 'Contact E-mail' }),
    comments: field.text(),
    location_type: field.foreignKey(() => locationTypeResource, { required: true, onDelete: 'protect' }),
  },
  uniqueTogether: [
    {
      fields: ['parent', 'name'],
      field: 'name',
      nullsEqual: true,
      message: ([parent]) => (parent === null ? 'A root-level location with this name already exists.' : 'A location with this parent and name already exists.'),
    },
  ],
  search: ['name', 'facility', 'description', 'physical_address', 'shipping_address', 'contact_name', 'contact_phone', 'contact_email', 'comments', 'asn'],
  filterAliases: { content_type: 'location_type__content_types' },
  filters: {
    /** The given locations and everything below them. */
    subtree: {
      lookups: ['n'],
      async compile(values, _lookup, h) {
        const ids = await descendantIds(h.exec, locationResource, await h.resolveIds(locationResource, values));
        return inList(h.col('id'), ids);
      },
    },
    /** Locations that may be the parent of a location of the given type(s). */
    child_location_type: {
      async compile(values, _lookup, h) {
        const ids = await h.resolveIds(locationTypeResource, values);
        const lt = await h.rows(locationTypeResource, 'lt');
        const types = await h.exec.query(sql`SELECT ${ident('lt', 'id')} AS ${ident('id')}, ${ident('lt', 'parent_id')} AS ${ident('parent_id')}, ${ident('lt', 'nestable')} AS ${ident('nestable')} ${lt.from(inList(ident('lt', 'id'), ids))}`);
        const parents = new Set<string>();
        for (const t of types) {
          if (t.parent_id) parents.add(String(t.parent_id));
          if (t.nestable) parents.add(String(t.id));
        }
        return inList(h.col('location_type_id'), [...parents]);
      },
    },
  },
  features: ['tags', 'customFields', 'notes', 'locations'],
  beforeSave(states) {
    for (const s of states) s.values._name = naturalize(String(s.values.name), 255);
  },
  async rules(s, w) {
    const errors: Record<string, string[]> = {};
    const type = s.related('location_type');
    if (!type) return errors;
    if (s.existing && String(s.existing.location_type_id) !== String(s.values.location_type_id)) {
      const before = await typeRow(w, String(s.existing.location_type_id));
      errors.location_type = [`Changing the type of an existing Location (from ${before?.name} to ${type.name} in this case) is not permitted.`];
      return errors;
    }
    const parent = s.related('parent');
    const typeParent = type.parent_id ? await typeRow(w, String(type.parent_id)) : null;
    if (!typeParent) {
      if (parent) {
        if (type.nestable) {
          if (String(parent.location_type_id) !== String(type.id))
            errors.parent = [`A Location of type ${type.name} may only have a Location of the same type as its parent.`];
        } else errors.parent = [`A Location of type ${type.name} must not have a parent Location.`];
      }
    } else if (!parent) {
      errors.parent = [`A Location of type ${type.name} must have a parent Location.`];
    } else if (type.nestable) {
      if (![String(type.id), String(typeParent.id)].includes(String(parent.location_type_id)))
        errors.parent = [`A Location of type ${type.name} can only have a Location of the same type or of type ${typeParent.name} as its parent.`];
    } else if (String(parent.location_type_id) !== String(typeParent.id)) {
      errors.parent = [`A Location of type ${type.name} can only have a Location of type ${typeParent.name} as its parent.`];
    }
    return errors;
  },
});

/** Location types by id, once per request (rules for a bulk write ask for the same few). */
function typeRow(w: WriteContext, id: string): Promise<Row | null> {
  return w.ctx.memo(`dcim.locationtype:${id}`, async () => {
    const [row] = await w.exec.query(sql`SELECT * FROM ${ident('dcim_locationtype')} WHERE ${ident('id')} = ${id}`);
    return row ?? null;
  });
}
