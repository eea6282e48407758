import { defineResource } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { link } from '../../../core/resource/mixin';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { PrimaryIpHost, primaryIpMixin } from '../../ipam/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { VDC_STATUSES } from '../choices';
import { isSet } from './device-software';
import { deviceResource } from './device.resource';
import { interfaceResource } from './interface.resource';

/** A VDC's primary IPs are on any interface of its device (the reference's message). */
const VDC_PRIMARY_IPS: PrimaryIpHost = {
  ownerTable: 'dcim_virtualdevicecontext',
  interfaceTable: 'dcim_interface',
  ownerColumn: 'device_id',
  assignmentColumn: 'interface_id',
  owner: 'VDC',
  ownerValue: 'device_id',
  notAssigned: (ip) => `${ip} is not part of an interface that belongs to this VDC's device.`,
  relatedNames: ['ip4_vdcs', 'ip6_vdcs'],
};

/**
 * A virtual device context (a Nexus VDC): a slice of one device, unique by name and by
 * identifier on it, with its own interfaces (interface-vdc-assignments) and primary IPs on the
 * device's interfaces. Its device cannot change once created.
 */
export const virtualDeviceContextResource = defineResource({
  app: 'dcim',
  model: 'virtualdevicecontext',
  slug: 'virtual-device-contexts',
  verboseName: 'virtual device context',
  // The reference's key is (device, identifier), which names no one context while identifiers are blank: (device, name) is unique always.
  naturalKey: ['device', 'name'],
  ordering: ['name'],
  display: (r) => r.name,
  mixins: [statusMixin({ defaults: VDC_STATUSES }), roleMixin(), tenancyMixin(), primaryIpMixin(VDC_PRIMARY_IPS)],
  fields: {
    name: field.string({ required: true, maxLength: 255 }),
    device: field.foreignKey(() => deviceResource, { required: true, onDelete: 'cascade', relatedName: 'virtual_device_contexts' }),
    identifier: field.integer({ nullable: true, minValue: 0, maxValue: 32767, help: 'Unique identifier provided by the platform being virtualized (Example: Nexus VDC Identifier)' }),
    interfaces: field.manyToMany(() => interfaceResource, { table: 'dcim_interfacevdcassignment', source: 'virtual_device_context_id', target: 'interface_id' }, { readOnly: true, relatedName: 'virtual_device_contexts' }),
    description: field.string({ maxLength: 255 }),
  },
  uniqueTogether: [{ fields: ['device', 'identifier'] }, { fields: ['device', 'name'] }],
  search: ['device__name', 'tenant__name', 'name'],
  filters: { has_tenant: isSet('tenant_id') },
  features: ['tags', 'customFields', 'notes'],
  rules(s): FieldErrors | void {
    if (!s.create && s.touched.has('device') && String(s.existing?.device_id) !== String(s.values.device_id)) {
      return { non_field_errors: ['Changing the device of a VirtualDeviceContext is not allowed.'] };
    }
  },
});

/** An interface of a virtual device context (once per context). */
export const interfaceVdcAssignmentResource = defineResource({
  app: 'dcim',
  model: 'interfacevdcassignment',
  slug: 'interface-vdc-assignments',
  verboseName: 'interface vdc assignment',
  className: 'InterfaceVDCAssignment',
  mixins: [
    link(
      { name: 'virtual_device_context', target: () => virtualDeviceContextResource, relatedName: 'interface_assignments' },
      { name: 'interface', target: () => interfaceResource, relatedName: 'virtual_device_context_assignments' },
    ),
  ],
  fields: {},
  search: ['interface__name', 'virtual_device_context__name'],
  filterAliases: { device: 'interface__device' },
  features: [],
});
