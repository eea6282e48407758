import { defineResource, model } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { DEVICE_PRIMARY_IPS, releasePrimaryIps, VM_PRIMARY_IPS } from '../mixins';
import { ipAddressResource } from './ip-address.resource';

/** The models an address may be assigned to, by object type: DCIM's interfaces and virtual machines'. */
export const INTERFACE_TYPES = { interface: 'dcim.interface', vm_interface: 'virtualization.vminterface' } as const;

const flag = (help: string) => field.boolean({ help });

export const ipAddressToInterfaceResource = defineResource({
  app: 'ipam',
  model: 'ipaddresstointerface',
  slug: 'ip-address-to-interface',
  verboseName: 'IP address assignment',
  className: 'IPAddressToInterface',
  verboseNamePlural: 'IP address assignments',
  naturalKey: ['id'],
  ordering: ['created'],
  // "<address> <device> <interface>", as the reference names an assignment.
  display: (r, h) => {
    const ip = h.related('ip_address');
    const iface = h.related('interface');
    const vmIface = h.related('vm_interface');
    const target = iface ? `${iface.device__name ?? 'No Parent'} ${iface.name}` : vmIface ? `${vmIface.virtual_machine__name ?? ''} ${vmIface.name}` : '';
    return `${ip ? `${ip.host_text}/${ip.mask_length}` : r.ip_address_id} ${target}`.trim();
  },
  displayUses: { ip_address: ['host_text', 'mask_length'], interface: ['name', 'device__name'], vm_interface: ['name', 'virtual_machine__name'] },
  fields: {
    ip_address: field.foreignKey(() => ipAddressResource, { required: true, onDelete: 'cascade' }),
    interface: field.foreignKey(model(INTERFACE_TYPES.interface), { nullable: true, onDelete: 'cascade', relatedName: 'ip_address_assignments' }),
    vm_interface: field.foreignKey(model(INTERFACE_TYPES.vm_interface), { nullable: true, onDelete: 'cascade', relatedName: 'ip_address_assignments' }),
    is_source: flag('Is source address on interface'),
    is_destination: flag('Is destination address on interface'),
    is_default: flag('Is default address on interface'),
    is_preferred: flag('Is preferred address on interface'),
    is_primary: flag('Is primary address on interface'),
    is_secondary: flag('Is secondary address on interface'),
    is_standby: flag('Is standby address on interface'),
  },
  // The serializer's validators name the interface first.
  uniqueTogether: [
    { fields: ['ip_address', 'interface'], message: 'The fields interface, ip_address must make a unique set.' },
    { fields: ['ip_address', 'vm_interface'], message: 'The fields vm_interface, ip_address must make a unique set.' },
  ],
  search: [],
  rules(s) {
    const errors: FieldErrors = {};
    const iface = s.values.interface_id;
    const vmIface = s.values.vm_interface_id;
    if (iface && vmIface) errors.interface = ['Cannot use a single instance to associate to both an Interface and a VMInterface.'];
    else if (!iface && !vmIface) errors.interface = ['Must associate to either an Interface or a VMInterface.'];
    return errors;
  },
  /** A device or virtual machine whose primary IP loses its last assignment to it loses it as primary. */
  async beforeDelete(rows, w) {
    await releasePrimaryIps(w.exec, DEVICE_PRIMARY_IPS, rows.filter((r) => r.interface_id).map((r) => String(r.id)));
    await releasePrimaryIps(w.exec, VM_PRIMARY_IPS, rows.filter((r) => r.vm_interface_id).map((r) => String(r.id)));
  },
});
