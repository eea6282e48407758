import { model } from '../../core/resource/definition';
import type { FieldErrors } from '../../core/resource/errors';
import { field } from '../../core/resource/fields';
import { mixin } from '../../core/resource/mixin';
import { unscoped } from '../../core/resource/query/rows';
import { ident, inList, join, Sql, sql } from '../../database/sql';
import { MODULE_DEPTH, modulesInDevices } from '../dcim/module-tree';

/**
 * Primary IPv4 and IPv6 addresses (Nautobot's `primary_ip4` / `primary_ip6` on devices and
 * virtual machines): each must be of its family and assigned (ip-address-to-interface) to one
 * of the object's own interfaces, with the reference's messages; filter `has_primary_ip`.
 * `interfaces`: the interface table, its column naming the owner, and the assignment's column
 * naming the interface; `owner`: how the message names the object ("device", "VM").
 */
export interface PrimaryIpHost {
  /** The owner's table (`dcim_device`). */
  ownerTable: string;
  interfaceTable: string;
  ownerColumn: string;
  assignmentColumn: string;
  owner: string;
  /** The owner's column that the interfaces' `ownerColumn` must equal (default `id`; a VDC's `device_id`). */
  ownerValue?: string;
  /** The message for an address on none of those interfaces (default "... is not assigned to this <owner>."). */
  notAssigned?: (address: string) => string;
  /** The reverse names on IP addresses (default `primary_ip4_for`, `primary_ip6_for`). */
  relatedNames?: [string, string];
  /** The interfaces of the modules installed in the owner are its own too (a device's all_interfaces). */
  moduleInterfaces?: boolean;
}

/**
 * The owner's interfaces, as a condition on the interface alias `i`: those naming it and, for a
 * device, those of the modules installed in it at any depth (what a write reaches: every row).
 */
async function ownInterfaces(o: PrimaryIpHost, i: string, owner: Sql): Promise<Sql> {
  const own = sql`${ident(i, o.ownerColumn)} = ${owner}`;
  if (!o.moduleInterfaces) return own;
  const modules = await modulesInDevices({ rows: async (def, alias) => unscoped(def, alias) }, sql`(${owner})`, MODULE_DEPTH);
  return sql`(${own} OR ${ident(i, 'module_id')} IN (${modules}))`;
}

/** Devices' primary IPs live on their interfaces, virtual machines' on theirs. */
export const DEVICE_PRIMARY_IPS: PrimaryIpHost = { ownerTable: 'dcim_device', interfaceTable: 'dcim_interface', ownerColumn: 'device_id', assignmentColumn: 'interface_id', owner: 'device', moduleInterfaces: true };
export const VM_PRIMARY_IPS: PrimaryIpHost = {
  ownerTable: 'virtualization_virtualmachine',
  interfaceTable: 'virtualization_vminterface',
  ownerColumn: 'virtual_machine_id',
  assignmentColumn: 'vm_interface_id',
  owner: 'virtual machine',
};

export const primaryIpMixin = (o: PrimaryIpHost) =>
  mixin({
    fields: () => ({
      primary_ip4: field.foreignKey(model('ipam.ipaddress'), { nullable: true, onDelete: 'setNull', relatedName: o.relatedNames?.[0] ?? 'primary_ip4_for', label: 'Primary IPv4' }),
      primary_ip6: field.foreignKey(model('ipam.ipaddress'), { nullable: true, onDelete: 'setNull', relatedName: o.relatedNames?.[1] ?? 'primary_ip6_for', label: 'Primary IPv6' }),
    }),
    filters: {
      has_primary_ip: {
        boolean: true,
        compile: (values, _l, h) => {
          const some = sql`(${h.col('primary_ip4_id')} IS NOT NULL OR ${h.col('primary_ip6_id')} IS NOT NULL)`;
          return values[values.length - 1] ? some : sql`NOT ${some}`;
        },
      },
    },
    async rules(s, w): Promise<FieldErrors | void> {
      for (const [name, version] of [['primary_ip4', 4], ['primary_ip6', 6]] as const) {
        const id = s.values[`${name}_id`];
        if (!id || !(s.create || s.touched.has(name))) continue;
        const ip = s.related(name);
        if (!ip) continue;
        const text = `${ip.host_text}/${ip.mask_length}`;
        if (Number(ip.ip_version) !== version) return { [name]: [`${text} is not an IPv${version} address.`] };
        // Assigned to one of the owner's interfaces, or its NAT inside address is (the reference's Device.clean).
        const addresses = [String(id), ...(ip.nat_inside_id ? [String(ip.nat_inside_id)] : [])];
        const assigned = await w.exec.query(
          sql`SELECT 1 AS x FROM ${ident('ipam_ipaddresstointerface')} a JOIN ${ident(o.interfaceTable)} i ON i.${ident('id')} = a.${ident(o.assignmentColumn)}
              WHERE ${inList(ident('a', 'ip_address_id'), addresses)} AND ${await ownInterfaces(o, 'i', sql`${s.values[o.ownerValue ?? 'id']}`)}`,
        );
        if (!assigned.length) return { [name]: [o.notAssigned?.(text) ?? `The specified IP address (${text}) is not assigned to this ${o.owner}.`] };
      }
    },
  });

/**
 * Assignments going (ip-address-to-interface rows, or all those of interfaces going): an owner
 * whose primary IP was one of their addresses, and has it on no other of its interfaces, loses
 * it (the reference's pre-delete signal), one UPDATE per family for the whole batch.
 */
export async function releasePrimaryIps(exec: import('../../database/db').Executor, o: PrimaryIpHost, assignmentIds: string[]): Promise<void> {
  if (!assignmentIds.length) return;
  for (const column of ['primary_ip4_id', 'primary_ip6_id']) {
    const gone = join(assignmentIds.map((id) => sql`${id}`));
    await exec.execute(
      sql`UPDATE ${ident(o.ownerTable)} SET ${ident(column)} = NULL WHERE ${ident(column)} IS NOT NULL
          AND EXISTS (SELECT 1 FROM ${ident('ipam_ipaddresstointerface')} a JOIN ${ident(o.interfaceTable)} i ON i.${ident('id')} = a.${ident(o.assignmentColumn)}
                      WHERE a.${ident('id')} IN (${gone}) AND a.${ident('ip_address_id')} = ${ident(o.ownerTable, column)} AND ${await ownInterfaces(o, 'i', ident(o.ownerTable, 'id'))})
          AND NOT EXISTS (SELECT 1 FROM ${ident('ipam_ipaddresstointerface')} b JOIN ${ident(o.interfaceTable)} j ON j.${ident('id')} = b.${ident(o.assignmentColumn)}
                      WHERE b.${ident('id')} NOT IN (${gone}) AND b.${ident('ip_address_id')} = ${ident(o.ownerTable, column)} AND ${await ownInterfaces(o, 'j', ident(o.ownerTable, 'id'))})`,
    );
  }
}
