import { defineResource, model, WriteContext, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { visibleIds } from '../../../core/resource/query/scope';
import { field } from '../../../core/resource/fields';
import type { Row } from '../../../database/db';
import { FALSE, ident, inList, Sql, sql } from '../../../database/sql';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { DEVICE_PRIMARY_IPS, releasePrimaryIps } from '../../ipam/mixins';
import { COPPER_TWISTED_PAIR_TYPES, DUPLEX_MODES, INTERFACE_TYPES, VIRTUAL_INTERFACE_TYPES, WIRELESS_INTERFACE_TYPES } from '../component-choices';
import { assignedInterfaces, ipAddressesFilter } from '../../ipam/ip-addresses-filter';
import { macAddressField, macValues } from '../mac';
import { withinLocation } from '../mixins';
import { componentDevice, MODULE_DEPTH, modulesInDevices } from '../module-tree';
import { cableTermination, pathEndpoint } from '../cabling/terminations';
import { componentName, deviceComponent } from './device-component';

export const INTERFACE_MODES = [
  ['access', 'Access'],
  ['tagged', 'Tagged'],
  ['tagged-all', 'Tagged (All)'],
] as const;

/** The reference's default statuses of interfaces. */
export const INTERFACE_STATUSES = ['Active', 'Decommissioning', 'Failed', 'Maintenance', 'Planned'] as const;

/** Virtual and wireless interfaces take no cable (NONCONNECTABLE_IFACE_TYPES). */
export const NONCONNECTABLE_TYPES: ReadonlySet<string> = new Set([...VIRTUAL_INTERFACE_TYPES, ...WIRELESS_INTERFACE_TYPES]);

/** Device rows (their name for messages, location, virtual chassis), each read once per request: a batch of interfaces on a few devices costs a few reads. */
async function devices(w: WriteContext, ids: unknown[]): Promise<Map<string, Row>> {
  const wanted = [...new Set(ids.filter((x) => x !== null && x !== undefined).map(String))];
  const out = new Map<string, Row>();
  for (const id of wanted) {
    const row = await w.ctx.memo(`dcim.interface-device:${id}`, async () => (await w.exec.query(sql`SELECT * FROM ${ident('dcim_device')} WHERE ${ident('id')} = ${id}`))[0] ?? null);
    if (row) out.set(id, row);
  }
  return out;
}

const deviceName = (d: Row | undefined) => (d ? String(d.name ?? d.id) : '');

async function chassisName(w: WriteContext, id: unknown): Promise<string> {
  const [row] = await w.exec.query<{ name: string }>(sql`SELECT ${ident('name')} FROM ${ident('dcim_virtualchassis')} WHERE ${ident('id')} = ${id}`);
  return row?.name ?? '';
}

/**
 * Another interface the write points at (its LAG, parent or bridge) must be on the same device,
 * or on a member of the same virtual chassis: the reference's three messages.
 */
async function sameDeviceOrChassis(s: WriteState, w: WriteContext, fieldName: string, label: string): Promise<FieldErrors | void> {
  const other = s.related(fieldName);
  // The reference compares the interfaces' parents (a module's interface: the module's device), when this one has one.
  const mineId = other ? await componentDevice(w, s.values) : null;
  if (!other || !mineId) return;
  const theirsId = await componentDevice(w, other);
  if (theirsId === mineId) return;
  if (!theirsId && fieldName === 'lag') return { lag: [`The selected LAG interface (${componentName(other)}) does not belong to a device.`] };
  const found = await devices(w, [mineId, theirsId]);
  const mine = found.get(mineId);
  const theirs = theirsId ? found.get(theirsId) : undefined;
  const chassis = mine?.virtual_chassis_id;
  // The other interface's device (a module's: the module's device) and the chassis are named only where the requester may view them.
  const shown = theirsId && (await visibleIds(w.ctx, w.exec, model('dcim.device')(), [theirsId])).has(theirsId);
  if (!chassis) return { [fieldName]: [`The selected ${label} interface (${componentName(other)}) belongs to a different device (${shown ? deviceName(theirs) : 'a device you may not view'}).`] };
  if (String(theirs?.virtual_chassis_id ?? '') !== String(chassis)) {
    const vc = (await visibleIds(w.ctx, w.exec, model('dcim.virtualchassis')(), [chassis])).has(String(chassis)) ? `virtual chassis ${await chassisName(w, chassis)}` : "this device's virtual chassis";
    return { [fieldName]: [`The selected ${label} interface (${componentName(other)}) belongs to ${shown ? deviceName(theirs) : 'a device you may not view'}, which is not part of ${vc}.`] };
  }
}

/** The VLAN's locations, where it has any; a VLAN without one is global. */
export async function vlanLocations(w: WriteContext, vlanIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!vlanIds.length) return out;
  const rows = await w.exec.query<{ vlan_id: string; location_id: string }>(
    sql`SELECT ${ident('vlan_id')}, ${ident('location_id')} FROM ${ident('ipam_vlanlocationassignment')} WHERE ${inList(ident('vlan_id'), vlanIds)}`,
  );
  for (const r of rows) out.set(String(r.vlan_id), [...(out.get(String(r.vlan_id)) ?? []), String(r.location_id)]);
  return out;
}

/** Whether a VLAN may be used on a device in `location`: it is global, or one of its locations is the device's or above it. */
async function vlanFits(w: WriteContext, locations: string[] | undefined, location: unknown): Promise<boolean> {
  if (!locations?.length || !location) return true;
  for (const l of locations) if (await withinLocation(w, l, location)) return true;
  return false;
}

const vlanName = (v: Row) => `${v.name} (${v.vid})`;

/**
 * A network interface of a device: type, status, role, MAC address, MTU, 802.1Q mode with its
 * untagged and tagged VLANs, LAG membership, a parent (sub-interfaces) and a bridge, a VRF, and
 * the IP addresses assigned to it (through ip-address-to-interface).
 */
export const interfaceResource = defineResource({
  app: 'dcim',
  model: 'interface',
  slug: 'interfaces',
  verboseName: 'interface',
  mixins: [deviceComponent({ module: 'module' }), cableTermination(), pathEndpoint(), statusMixin({ defaults: INTERFACE_STATUSES }), roleMixin()],
  fields: {
    type: field.choice(INTERFACE_TYPES, { required: true, maxLength: 50 }),
    enabled: field.boolean({ default: true }),
    mac_address: macAddressField(),
    mtu: field.integer({ nullable: true, minValue: 1, maxValue: 65536, label: 'MTU' }),
    mgmt_only: field.boolean({ label: 'Management only', help: 'This interface is used only for out-of-band management' }),
    speed: field.integer({ nullable: true, minValue: 0, maxValue: 2147483647 }),
    duplex: field.choice(DUPLEX_MODES, { maxLength: 10 }),
    mode: field.choice(INTERFACE_MODES, { maxLength: 50 }),
    lag: field.foreignKey(model('dcim.interface'), { nullable: true, onDelete: 'setNull', relatedName: 'member_interfaces', label: 'Parent LAG', help: 'Assigned LAG interface' }),
    parent_interface: field.foreignKey(model('dcim.interface'), { nullable: true, onDelete: 'cascade', relatedName: 'child_interfaces', label: 'Parent interface', help: 'Assigned parent interface' }),
    bridge: field.foreignKey(model('dcim.interface'), { nullable: true, onDelete: 'setNull', relatedName: 'bridged_interfaces', label: 'Bridge interface', help: 'Assigned bridge interface' }),
    untagged_vlan: field.foreignKey(model('ipam.vlan'), { nullable: true, onDelete: 'setNull', relatedName: 'interfaces_as_untagged', label: 'Untagged VLAN' }),
    tagged_vlans: field.manyToMany(model('ipam.vlan'), { table: 'dcim_interface_tagged_vlans', source: 'interface_id', target: 'vlan_id' }, { writable: true, relatedName: 'interfaces_as_tagged', label: 'Tagged VLANs' }),
    vrf: field.foreignKey(model('ipam.vrf'), { nullable: true, onDelete: 'setNull', relatedName: 'interfaces', label: 'VRF' }),
    ip_addresses: field.manyToMany(model('ipam.ipaddress'), { table: 'ipam_ipaddresstointerface', source: 'interface_id', target: 'ip_address_id' }, { relatedName: 'interfaces', label: 'IP Addresses' }),
    ip_address_count: field.count('ipam.ipaddresstointerface', 'interface'),
  },
  filters: {
    /**
     * By device (name or id), as the reference's interface filter: a virtual chassis master's
     * also lists its members' interfaces but their management ones (`vc_interfaces`). A permission
     * constraint on `device` stays exact.
     */
    device: {
      lookups: ['', 'n'],
      compile: async (values, _l, h) => {
        const ids = await h.resolveIds(model('dcim.device')(), values);
        if (!ids.length) return FALSE;
        if (h.mode !== 'query') return inList(h.col('device_id'), ids);
        // Device.all_interfaces: its own and those of the modules installed in it (modules the requester may view).
        const all = async (devices: readonly string[] | Sql) =>
          sql`(${Array.isArray(devices) ? inList(h.col('device_id'), devices as string[]) : sql`${h.col('device_id')} IN ${devices as Sql}`} OR ${h.col('module_id')} IN (${await modulesInDevices(h, devices, MODULE_DEPTH)}))`;
        // The members of the virtual chassis the devices are masters of, among those the requester may view.
        const chassis = (await h.rows(model('dcim.virtualchassis')(), 'vc')).select('id', inList(ident('vc', 'master_id'), ids));
        const members = (await h.rows(model('dcim.device')(), 'vd')).select('id', sql`${ident('vd', 'virtual_chassis_id')} IN ${chassis}`);
        return sql`(${await all(ids)} OR (${h.col('mgmt_only')} = ${h.exec.dialect.toDb(false, 'boolean')} AND ${await all(members)}))`;
      },
    },
    /** By MAC address, written in any form the field takes. */
    mac_address: { compile: (values, _l, h) => inList(h.col('mac_address'), macValues(values, h.invalid)) },
    /** Interfaces with one of these addresses (address or ID). */
    ip_addresses: ipAddressesFilter(async (h, ips) => sql`${h.col('id')} IN ${await assignedInterfaces(h, ips, 'interface_id')}`),
    /** physical (cable-able), virtual or wireless. */
    kind: {
      compile: (values, _lookup, h) => {
        const kind = String(values[values.length - 1]).trim().toLowerCase();
        const types = (set: ReadonlySet<string>) => inList(h.col('type'), [...set]);
        if (kind === 'physical') return sql`NOT ${types(NONCONNECTABLE_TYPES)}`;
        if (kind === 'virtual') return types(VIRTUAL_INTERFACE_TYPES);
        if (kind === 'wireless') return types(WIRELESS_INTERFACE_TYPES);
        return FALSE;
      },
    },
    /** Interfaces carrying a VLAN (by VID), untagged or tagged. */
    vlan: {
      compile: async (values, _lookup, h) => {
        const vids = values.map((v) => Number(v));
        if (vids.some((v) => !Number.isInteger(v))) h.invalid('Enter a number.');
        // Among the VLANs the requester may view.
        const vlans = (await h.rows(model('ipam.vlan')(), 'v')).select('id', inList(ident('v', 'vid'), vids));
        return sql`(${h.col('untagged_vlan_id')} IN ${vlans} OR ${h.col('id')} IN (SELECT t.${ident('interface_id')} FROM ${ident('dcim_interface_tagged_vlans')} t WHERE t.${ident('vlan_id')} IN ${vlans}))`;
      },
    },
    /** Interfaces carrying a VLAN (by id), untagged or tagged. */
    vlan_id: {
      compile: async (values, _lookup, h) => {
        const ids = await h.resolveIds(model('ipam.vlan')(), values);
        if (!ids.length) return FALSE;
        return sql`(${inList(h.col('untagged_vlan_id'), ids)} OR ${h.col('id')} IN (SELECT ${ident('interface_id')} FROM ${ident('dcim_interface_tagged_vlans')} WHERE ${inList(ident('vlan_id'), ids)}))`;
      },
    },
  },
  async rules(s, w): Promise<FieldErrors | void> {
    const type = String(s.values.type);
    const mode = String(s.values.mode ?? '');
    // The serializer's 802.1Q checks first, then the model's.
    const tagged = s.m2m('tagged_vlans');
    if (mode !== 'tagged') {
      if (tagged?.length) return { tagged_vlans: ['Mode must be set to tagged when specifying tagged_vlans'] };
      // Only a stored tagged interface can hold tagged VLANs (saving any other mode clears them): no read for the others.
      if (!s.create && tagged === undefined && s.existing?.mode === 'tagged' && (await s.linked('tagged_vlans')).length) {
        return { tagged_vlans: [`Clear tagged_vlans to set mode to ${mode}`] };
      }
    }
    if (!mode && s.values.untagged_vlan_id) return { untagged_vlan: ['Mode must be set when specifying untagged_vlan'] };
    const untagged = s.related('untagged_vlan');
    const wanted = [...(tagged ?? []), ...(untagged ? [String(untagged.id)] : [])];
    // The parent device matters only for VLANs and a VRF (a module's device costs a read).
    const parent = wanted.length || s.values.vrf_id ? await componentDevice(w, s.values) : null;
    const location = wanted.length && parent ? (await devices(w, [parent])).get(parent)?.location_id : null;
    if (wanted.length && location) {
      const places = await vlanLocations(w, wanted);
      if (untagged && !(await vlanFits(w, places.get(String(untagged.id)), location))) {
        return { untagged_vlan: [`The untagged VLAN (${vlanName(untagged)}) must have a common location as the interface's parent device, or is in one of the parents of the interface's parent device's location, or it must be global.`] };
      }
      // The serializer checks tagged VLANs against the interface's own device only.
      for (const id of s.values.device_id ? (tagged ?? []) : []) {
        if (await vlanFits(w, places.get(id), location)) continue;
        const [vlan] = await w.exec.query(sql`SELECT ${ident('name')}, ${ident('vid')} FROM ${ident('ipam_vlan')} WHERE ${ident('id')} = ${id}`);
        return { tagged_vlans: [`VLAN ${vlanName(vlan)} must have the same location as the interface's parent device, or is in one of the parents of the interface's parent device's location, or it must be global.`] };
      }
    }
    if (s.values.vrf_id && parent) {
      const assigned = w.ctx.registry.get('ipam.vrfdeviceassignment')
        ? await w.exec.query(sql`SELECT 1 AS x FROM ${ident('ipam_vrfdeviceassignment')} WHERE ${ident('vrf_id')} = ${s.values.vrf_id} AND ${ident('device_id')} = ${parent}`)
        : [];
      if (!assigned.length) return { vrf: ['VRF must be assigned to same Device.'] };
    }
    if (s.values.lag_id) {
      if (String(s.values.lag_id) === String(s.values.id)) return { lag: ['A LAG interface cannot be its own parent.'] };
      const other = await sameDeviceOrChassis(s, w, 'lag', 'LAG');
      if (other) return other;
      if (type === 'virtual') return { lag: ['Virtual interfaces cannot have a parent LAG interface.'] };
    }
    if (s.values.parent_interface_id) {
      if (String(s.values.parent_interface_id) === String(s.values.id)) return { parent_interface: ['An interface cannot be its own parent.'] };
      if (type !== 'virtual') return { parent_interface: ['Only virtual interfaces may be assigned to a parent interface.'] };
      const other = await sameDeviceOrChassis(s, w, 'parent_interface', 'parent');
      if (other) return other;
    }
    if (s.values.bridge_id) {
      if (String(s.values.bridge_id) === String(s.values.id)) return { bridge: ['An interface cannot be bridged to itself.'] };
      const other = await sameDeviceOrChassis(s, w, 'bridge', 'bridge');
      if (other) return other;
    }
    if (NONCONNECTABLE_TYPES.has(type) && s.values.cable_id) {
      return { type: ['Virtual and wireless interfaces cannot be connected to another interface or circuit. Disconnect the interface or choose a suitable type.'] };
    }
    const notPhysical = type === 'lag' || VIRTUAL_INTERFACE_TYPES.has(type) || WIRELESS_INTERFACE_TYPES.has(type);
    if (s.values.speed && notPhysical) return { speed: ['Speed is not applicable to this interface type.'] };
    if (s.values.duplex && notPhysical) return { duplex: ['Duplex is not applicable to this interface type.'] };
    if (s.values.duplex && !COPPER_TWISTED_PAIR_TYPES.has(type)) return { duplex: ['Duplex is only applicable to copper twisted-pair interfaces.'] };
  },
  /** Interfaces going take their address assignments: the devices' primary IPs among them go too. */
  async beforeDelete(rows, w) {
    const assignments = await w.exec.query<{ id: string }>(sql`SELECT ${ident('id')} FROM ${ident('ipam_ipaddresstointerface')} WHERE ${inList(ident('interface_id'), rows.map((r) => String(r.id)))}`);
    await releasePrimaryIps(w.exec, DEVICE_PRIMARY_IPS, assignments.map((a) => String(a.id)));
  },
  /** Only a tagged interface keeps tagged VLANs (the reference clears them when the mode changes). */
  async afterSave(_ids, w, states) {
    const cleared = states.filter((s) => !s.create && s.values.mode !== 'tagged').map((s) => String(s.values.id));
    if (cleared.length) await w.exec.execute(sql`DELETE FROM ${ident('dcim_interface_tagged_vlans')} WHERE ${inList(ident('interface_id'), cleared)}`);
  },
});
