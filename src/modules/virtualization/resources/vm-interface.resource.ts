import { defineResource, model, WriteContext } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { FALSE, ident, inList, sql } from '../../../database/sql';
import { column } from '../../../database/schema/schema';
import { assignedInterfaces, ipAddressesFilter } from '../../ipam/ip-addresses-filter';
import { macAddressField, macValues } from '../../dcim/mac';
import { INTERFACE_MODES, INTERFACE_STATUSES, vlanLocations } from '../../dcim/resources/interface.resource';
import { naturalize } from '../../dcim/resources/naturalize';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { releasePrimaryIps, VM_PRIMARY_IPS } from '../../ipam/mixins';
import { virtualMachineResource } from './virtual-machine.resource';

/** A virtual machine's location: its cluster's (once per VM and request). */
function vmLocation(w: WriteContext, vm: unknown): Promise<string | null> {
  return w.ctx.memo(`virtualization.vm-location:${vm}`, async () => {
    const [row] = await w.exec.query<{ location_id: string | null }>(
      sql`SELECT c.${ident('location_id')} FROM ${ident('virtualization_virtualmachine')} v JOIN ${ident('virtualization_cluster')} c ON c.${ident('id')} = v.${ident('cluster_id')} WHERE v.${ident('id')} = ${vm}`,
    );
    return row?.location_id ? String(row.location_id) : null;
  });
}

/**
 * A network interface of a virtual machine: name unique per VM (sorted naturally), enabled, MAC
 * address, MTU, 802.1Q mode with untagged and tagged VLANs, a parent (sub-interfaces) and a
 * bridge, a VRF, status and role, and the IP addresses assigned to it (ip-address-to-interface).
 */
export const vmInterfaceResource = defineResource({
  app: 'virtualization',
  model: 'vminterface',
  partOf: ['virtual_machine'],
  slug: 'interfaces',
  verboseName: 'VM interface',
  verboseNamePlural: 'VM interfaces',
  naturalKey: ['virtual_machine', 'name'],
  ordering: ['virtual_machine_id', '_name'],
  display: (r) => String(r.name),
  mixins: [statusMixin({ defaults: INTERFACE_STATUSES }), roleMixin()],
  columns: { _name: { ...column.string(255), sortable: true } },
  // A VM's interfaces in the list's order: a page of them is one index range, no sort.
  indexes: [['virtual_machine_id', '_name', 'id']],
  fields: {
    // The unique (virtual_machine, name) key leads with the column: no index of its own.
    virtual_machine: field.foreignKey(() => virtualMachineResource, { required: true, onDelete: 'cascade', index: false, relatedName: 'interfaces' }),
    name: field.string({ required: true, maxLength: 255, index: true }),
    description: field.string({ maxLength: 255 }),
    enabled: field.boolean({ default: true }),
    mac_address: macAddressField(),
    mtu: field.integer({ nullable: true, minValue: 1, maxValue: 65536, label: 'MTU' }),
    mode: field.choice(INTERFACE_MODES, { maxLength: 50 }),
    parent_interface: field.foreignKey(model('virtualization.vminterface'), { nullable: true, onDelete: 'cascade', relatedName: 'child_interfaces', label: 'Parent interface', help: 'Assigned parent interface' }),
    bridge: field.foreignKey(model('virtualization.vminterface'), { nullable: true, onDelete: 'setNull', relatedName: 'bridged_interfaces', label: 'Bridge interface', help: 'Assigned bridge interface' }),
    untagged_vlan: field.foreignKey(model('ipam.vlan'), { nullable: true, onDelete: 'setNull', relatedName: 'vminterfaces_as_untagged', label: 'Untagged VLAN' }),
    tagged_vlans: field.manyToMany(model('ipam.vlan'), { table: 'virtualization_vminterface_tagged_vlans', source: 'vminterface_id', target: 'vlan_id' }, { writable: true, relatedName: 'vminterfaces_as_tagged', label: 'Tagged VLANs' }),
    vrf: field.foreignKey(model('ipam.vrf'), { nullable: true, onDelete: 'setNull', relatedName: 'vm_interfaces', label: 'VRF' }),
    ip_addresses: field.manyToMany(model('ipam.ipaddress'), { table: 'ipam_ipaddresstointerface', source: 'vm_interface_id', target: 'ip_address_id' }, { relatedName: 'vm_interfaces', label: 'IP Addresses' }),
  },
  uniqueTogether: [{ fields: ['virtual_machine', 'name'] }],
  search: ['name'],
  filterAliases: { virtual_machine_id: 'virtual_machine', cluster: 'virtual_machine__cluster', cluster_id: 'virtual_machine__cluster' },
  filters: {
    /** By MAC address, written in any form the field takes. */
    mac_address: { compile: (values, _l, h) => inList(h.col('mac_address'), macValues(values, h.invalid)) },
    /** Interfaces with one of these addresses (address or ID). */
    ip_addresses: ipAddressesFilter(async (h, ips) => sql`${h.col('id')} IN ${await assignedInterfaces(h, ips, 'vm_interface_id')}`),
    /** Interfaces carrying a VLAN (by id), untagged or tagged. */
    vlan_id: {
      compile: async (values, _lookup, h) => {
        const ids = await h.resolveIds(model('ipam.vlan')(), values);
        if (!ids.length) return FALSE;
        return sql`(${inList(h.col('untagged_vlan_id'), ids)} OR ${h.col('id')} IN (SELECT ${ident('vminterface_id')} FROM ${ident('virtualization_vminterface_tagged_vlans')} WHERE ${inList(ident('vlan_id'), ids)}))`;
      },
    },
  },
  features: ['tags', 'customFields', 'notes'],
  async rules(s, w): Promise<FieldErrors | void> {
    const mode = String(s.values.mode ?? '');
    const tagged = s.m2m('tagged_vlans');
    // The serializer's check: each tagged VLAN is global or of the VM's location (its cluster's); an update keeps its VM's.
    if (tagged?.length) {
      const location = await vmLocation(w, s.existing?.virtual_machine_id ?? s.values.virtual_machine_id);
      const places = await vlanLocations(w, tagged);
      for (const id of tagged) {
        const at = places.get(id) ?? [];
        if (!at.length || (location && at.includes(location))) continue;
        const [vlan] = await w.exec.query(sql`SELECT ${ident('name')}, ${ident('vid')} FROM ${ident('ipam_vlan')} WHERE ${ident('id')} = ${id}`);
        return { tagged_vlans: [`VLAN ${vlan.name} (${vlan.vid}) must belong to the same location as the interface's parent virtual machine, or it must be global.`] };
      }
    }
    if (mode !== 'tagged') {
      if (tagged?.length) return { tagged_vlans: ['Mode must be set to tagged when specifying tagged_vlans'] };
      // Only a stored tagged interface can hold tagged VLANs (saving any other mode clears them): no read for the others.
      if (!s.create && tagged === undefined && s.existing?.mode === 'tagged' && (await s.linked('tagged_vlans')).length) {
        return { tagged_vlans: [`Clear tagged_vlans to set mode to ${mode}`] };
      }
    }
    if (!mode && s.values.untagged_vlan_id) return { untagged_vlan: ['Mode must be set when specifying untagged_vlan'] };
  },
  beforeSave(states) {
    for (const s of states) s.values._name = naturalize(String(s.values.name), 255);
  },
  /** Only a tagged interface keeps tagged VLANs (the reference clears them when the mode changes). */
  async afterSave(_ids, w, states) {
    const cleared = states.filter((s) => !s.create && s.values.mode !== 'tagged').map((s) => String(s.values.id));
    if (cleared.length) await w.exec.execute(sql`DELETE FROM ${ident('virtualization_vminterface_tagged_vlans')} WHERE ${inList(ident('vminterface_id'), cleared)}`);
  },
  /** Interfaces going take their address assignments: the VMs' primary IPs among them go too. */
  async beforeDelete(rows, w) {
    const assignments = await w.exec.query<{ id: string }>(sql`SELECT ${ident('id')} FROM ${ident('ipam_ipaddresstointerface')} WHERE ${inList(ident('vm_interface_id'), rows.map((r) => String(r.id)))}`);
    await releasePrimaryIps(w.exec, VM_PRIMARY_IPS, assignments.map((a) => String(a.id)));
  },
});
