import { defineResource, model, WriteContext, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import type { Row } from '../../../database/db';
import { ident, inList, raw, sql } from '../../../database/sql';
import { column } from '../../../database/schema/schema';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { DEVICE_PRIMARY_IPS, primaryIpMixin } from '../../ipam/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { DEVICE_FACES, DEVICE_STATUSES } from '../choices';
import { locatedMixin, locationName, withinLocation } from '../mixins';
import { fits, Mounted, mountedDevices } from '../rack-space';
import { instantiateComponents } from '../instantiate';
import { assignedInterfaces, ipAddressesFilter } from '../../ipam/ip-addresses-filter';
import { macValues } from '../mac';
import { moduleHolderFilters } from '../module-tree';
import { deviceTypeResource } from './device-type.resource';
import { deviceSoftwareMixin } from './device-software';
import { naturalize } from './naturalize';
import { platformResource } from './platform.resource';
import { rackResource } from './rack.resource';

/** An optional text that is part of a unique key: blank is stored as null, so blanks never collide. */
const blankAsNull = (v: unknown) => (v === '' ? null : v);

/** A manufacturer's name, for messages (once per request). */
function manufacturerName(w: WriteContext, id: unknown): Promise<string> {
  return w.ctx.memo(`dcim.manufacturer-name:${id}`, async () => {
    const [row] = await w.exec.query<{ name: string }>(sql`SELECT ${ident('name')} FROM ${ident('dcim_manufacturer')} WHERE ${ident('id')} = ${id}`);
    return row?.name ?? '';
  });
}

/** A device type as the reference prints it: "<manufacturer> <model>". */
async function typeName(w: WriteContext, type: Row): Promise<string> {
  return `${await manufacturerName(w, type.manufacturer_id)} ${type.model}`;
}

const rackName = (rack: Row) => (rack.facility_id ? `${rack.name} (${rack.facility_id})` : String(rack.name));
const isChild = (type: Row | null) => type?.subdevice_role === 'child';
/** Whether a write may move the device within its rack (the occupancy check runs then only). */
const moves = (s: WriteState) => s.create || ['rack', 'position', 'face', 'device_type'].some((n) => s.touched.has(n));

/**
 * A piece of hardware of a device type, with a role, in a location and optionally mounted in a
 * rack of that location or below it, optionally a member of a virtual chassis and a host of a
 * cluster, with a secrets group (its credentials). A new device gets its type's components; a parent device that moves takes the children in its bays along.
 */
export const deviceResource = defineResource({
  app: 'dcim',
  model: 'device',
  // Read by a location's counts or every model's tags: kept with a detail (serialize/kept-values.ts).
  watched: true,
  slug: 'devices',
  naturalKey: ['name', 'tenant', 'location'],
  ordering: ['_name'],
  // Unnamed: "<manufacturer> <model> (<id>)", as the reference shows it.
  display: (r, h) => {
    if (r.name) return String(r.name);
    const chassis = h.related('virtual_chassis');
    if (chassis) return `${chassis.name}:${r.vc_position} (${r.id})`;
    const type = h.related('device_type');
    return type ? `${type.manufacturer__name ?? ''} ${type.model} (${r.id})` : String(r.id);
  },
  displayUses: { device_type: ['model', 'manufacturer__name'], virtual_chassis: ['name'] },
  mixins: [
    statusMixin({ defaults: DEVICE_STATUSES }),
    roleMixin({ required: true }),
    tenancyMixin(),
    locatedMixin(),
    primaryIpMixin(DEVICE_PRIMARY_IPS),
    deviceSoftwareMixin(),
  ],
  columns: { _name: { ...column.string(100, { nullable: true }), sortable: true } },
  indexes: [['_name']],
  fields: {
    device_type: field.foreignKey(() => deviceTypeResource, { required: true, onDelete: 'protect' }),
    platform: field.foreignKey(() => platformResource, { nullable: true, onDelete: 'setNull' }),
    name: field.string({ maxLength: 64, nullable: true, normalize: blankAsNull, index: true }),
    serial: field.string({ maxLength: 255, index: true, label: 'Serial number' }),
    asset_tag: field.string({ maxLength: 255, nullable: true, unique: true, normalize: blankAsNull, label: 'Asset tag', help: 'A unique tag used to identify this device' }),
    rack: field.foreignKey(() => rackResource, { nullable: true, onDelete: 'protect' }),
    position: field.integer({ nullable: true, minValue: 1, maxValue: 32767, label: 'Position (U)', help: 'The lowest-numbered unit occupied by the device' }),
    face: field.choice(DEVICE_FACES, { maxLength: 50, label: 'Rack face' }),
    comments: field.text(),
    virtual_chassis: field.foreignKey(model('dcim.virtualchassis'), { nullable: true, onDelete: 'setNull', relatedName: 'members' }),
    vc_position: field.integer({ nullable: true, minValue: 0, maxValue: 255, label: 'Virtual chassis position' }),
    vc_priority: field.integer({ nullable: true, minValue: 0, maxValue: 255, label: 'Virtual chassis priority' }),
    cluster: field.foreignKey(model('virtualization.cluster'), { nullable: true, onDelete: 'setNull', relatedName: 'devices' }),
    secrets_group: field.foreignKey(model('extras.secretsgroup'), { nullable: true, onDelete: 'setNull', relatedName: 'devices' }),
  },
  uniqueTogether: [
    {
      fields: ['location', 'tenant', 'name'],
      nullsEqual: ['tenant'],
      field: ([, tenant]) => (tenant === null ? 'name' : 'non_field_errors'),
      message: ([, tenant]) => (tenant === null ? 'A device with this name already exists.' : 'The fields location, tenant, name must make a unique set.'),
    },
    { fields: ['rack', 'position', 'face'] },
    // The reference's serializer leaves this set to the model's own check, hence Django's wording.
    { fields: ['virtual_chassis', 'vc_position'], message: 'Device with this Virtual chassis and Vc position already exists.' },
  ],
  search: ['name', 'serial', 'asset_tag', 'comments'],
  filterAliases: { manufacturer: 'device_type__manufacturer', device_family: 'device_type__device_family', virtual_chassis_member: 'is_virtual_chassis_member' },
  filters: {
    is_virtual_chassis_member: {
      boolean: true,
      compile: (values, _l, h) => (values[values.length - 1] ? sql`${h.col('virtual_chassis_id')} IS NOT NULL` : sql`${h.col('virtual_chassis_id')} IS NULL`),
    },
    /** Devices with an interface of this MAC address (any form the field takes). */
    mac_address: {
      compile: async (values, _l, h) => sql`${h.col('id')} IN ${(await h.rows(model('dcim.interface')(), 'di')).select('device_id', inList(ident('di', 'mac_address'), macValues(values, h.invalid)))}`,
    },
    /** Devices with one of these addresses (address or ID) on one of their own interfaces (those the requester may view). */
    ip_addresses: ipAddressesFilter(async (h, ips) => sql`${h.col('id')} IN ${(await h.rows(model('dcim.interface')(), 'di')).select('device_id', sql`${ident('di', 'id')} IN ${await assignedInterfaces(h, ips, 'interface_id')}`)}`),
    has_ip_addresses: {
      boolean: true,
      compile: async (values, _l, h) => {
        const some = sql`${h.col('id')} IN ${(await h.rows(model('dcim.interface')(), 'di')).select('device_id', sql`${ident('di', 'id')} IN ${await assignedInterfaces(h, null, 'interface_id')}`)}`;
        return values[values.length - 1] ? some : sql`NOT ${some}`;
      },
    },
    ...moduleHolderFilters('parent_device_id'),
  },
  features: ['tags', 'customFields', 'notes', 'configContexts'],
  async rules(s, w): Promise<FieldErrors | void> {
    const type = s.related('device_type');
    const rack = s.related('rack');
    const face = s.values.face || '';
    const position = s.values.position ?? null;
    if (rack && !(await withinLocation(w, s.values.location_id, rack.location_id))) {
      return { rack: [`Rack "${rackName(rack)}" does not belong to location "${await locationName(w, s.values.location_id)}" and its descendants.`] };
    }
    if (!rack && face) return { face: ['Cannot select a rack face without assigning a rack.'] };
    if (!rack && position !== null) return { position: ['Cannot select a rack position without assigning a rack.'] };
    if (position !== null && !face) return { face: ['Must specify rack face when defining rack position.'] };
    if (type && position !== null && Number(type.u_height) === 0) return { position: [`A U0 device type (${await typeName(w, type)}) cannot be assigned to a rack position.`] };
    if (rack && isChild(type) && face) return { face: ['Child device types cannot be assigned to a rack face. This is an attribute of the parent device.'] };
    if (rack && isChild(type) && position !== null) return { position: ['Child device types cannot be assigned to a rack position. This is an attribute of the parent device.'] };
    const platform = s.related('platform');
    if (type && platform?.manufacturer_id && String(platform.manufacturer_id) !== String(type.manufacturer_id)) {
      const [limited, belongs] = await Promise.all([manufacturerName(w, platform.manufacturer_id), manufacturerName(w, type.manufacturer_id)]);
      return { platform: [`The assigned platform is limited to ${limited} device types, but this device's type belongs to ${belongs}.`] };
    }
    // A host of a cluster lies in the cluster's location or below it.
    const cluster = s.related('cluster');
    if (cluster?.location_id && !(await withinLocation(w, cluster.location_id, s.values.location_id))) {
      return { cluster: [`The assigned cluster belongs to a location that does not include ${await locationName(w, s.values.location_id)}.`] };
    }
    if (s.values.virtual_chassis_id && (s.values.vc_position ?? null) === null) return { vc_position: ['A device assigned to a virtual chassis must have its position defined.'] };
    // The reference checks removal only (a master moved to another chassis directly is not refused).
    if (!s.create && !s.values.virtual_chassis_id && s.existing?.virtual_chassis_id) {
      const [mastered] = await w.exec.query<{ name: string }>(
        sql`SELECT ${ident('name')} FROM ${ident('dcim_virtualchassis')} WHERE ${ident('id')} = ${s.existing.virtual_chassis_id} AND ${ident('master_id')} = ${s.values.id}`,
      );
      if (mastered) return { virtual_chassis: [`The master device for the virtual chassis (${mastered.name}) may not be removed`] };
    }
  },
  /** Units taken by stored devices or by others of the batch, in one read of the racks concerned (locked, so two writers take turns). */
  async validateBatch(states, w) {
    const checked = states.filter((s) => moves(s) && s.values.rack_id && s.values.position !== null && s.values.position !== undefined && s.related('device_type'));
    if (!checked.length) return;
    const racks = [...new Set(checked.map((s) => String(s.values.rack_id)))];
    await w.exec.query(sql`SELECT ${ident('id')} FROM ${ident('dcim_rack')} WHERE ${inList(ident('id'), racks)}${raw(w.exec.dialect.forUpdate)}`);
    const taken: Mounted[] = await mountedDevices(w.exec, racks, states.map((s) => String(s.values.id)));
    return Promise.all(
      states.map(async (s): Promise<FieldErrors | void> => {
        if (!checked.includes(s)) return;
        const type = s.related('device_type')!;
        const rack = s.related('rack')!;
        const mine: Mounted = {
          id: String(s.values.id),
          rack: String(rack.id),
          position: Number(s.values.position),
          face: String(s.values.face ?? ''),
          height: Number(type.u_height),
          fullDepth: type.is_full_depth === true || type.is_full_depth === 1 || type.is_full_depth === '1',
        };
        const others = taken.filter((o) => o.rack === mine.rack);
        if (!fits(Number(rack.u_height), mine.position, mine.height, mine.fullDepth ? null : mine.face, others)) {
          return { position: [`U${mine.position} is already occupied or does not have sufficient space to accommodate this device type: ${await typeName(w, type)} (${mine.height}U)`] };
        }
        taken.push(mine);
      }),
    );
  },
  /**
   * A new device gets its type's components (ports, interfaces, bays) in the same transaction;
   * a parent that moves takes the child devices in its bays to its location and rack.
   */
  async afterSave(_ids, w, states) {
    await instantiateComponents(w, states.filter((s) => s.create).map((s) => ({ id: String(s.values.id), typeId: String(s.values.device_type_id) })));
    const moved = states.filter((s) => !s.create && (String(s.existing!.location_id) !== String(s.values.location_id) || String(s.existing!.rack_id ?? '') !== String(s.values.rack_id ?? '')));
    if (!moved.length) return;
    // One read for the batch; an UPDATE only for the parents that hold children.
    const bays = await w.exec.query<{ device_id: string; installed_device_id: string }>(
      sql`SELECT ${ident('device_id')}, ${ident('installed_device_id')} FROM ${ident('dcim_devicebay')} WHERE ${inList(ident('device_id'), moved.map((s) => String(s.values.id)))} AND ${ident('installed_device_id')} IS NOT NULL`,
    );
    const now = w.exec.dialect.toDb(w.ctx.now(), 'datetime');
    for (const s of moved) {
      const children = bays.filter((b) => String(b.device_id) === String(s.values.id)).map((b) => String(b.installed_device_id));
      if (!children.length) continue;
      await w.exec.execute(
        sql`UPDATE ${ident('dcim_device')} SET ${ident('location_id')} = ${s.values.location_id}, ${ident('rack_id')} = ${s.values.rack_id ?? null}, ${ident('last_updated')} = ${now} WHERE ${inList(ident('id'), children)}`,
      );
    }
  },
  beforeSave(states) {
    for (const s of states) s.values._name = s.values.name === null || s.values.name === undefined ? null : naturalize(String(s.values.name), 100);
  },
});
