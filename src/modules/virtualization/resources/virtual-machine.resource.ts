import { CustomFilterHelpers, defineResource, model } from '../../../core/resource/definition';
import { assignedInterfaces, ipAddressesFilter } from '../../ipam/ip-addresses-filter';
import { field } from '../../../core/resource/fields';
import { ident, inList, Sql, sql } from '../../../database/sql';
import { macValues } from '../../dcim/mac';
import { platformResource } from '../../dcim/resources/platform.resource';
import { softwareFields } from '../../dcim/resources/device-software';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { primaryIpMixin, VM_PRIMARY_IPS } from '../../ipam/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { clusterResource } from './cluster.resource';

/** The reference's default statuses of virtual machines. */
export const VIRTUAL_MACHINE_STATUSES = ['Active', 'Decommissioning', 'Failed', 'Offline', 'Planned', 'Staged'] as const;

/** VMs whose interfaces (those the requester may view) match `cond` (alias i): a sub-select of their ids. */
const withInterfaces = async (h: CustomFilterHelpers, cond: Sql) => (await h.rows(model('virtualization.vminterface')(), 'i')).select('virtual_machine_id', cond);

/**
 * A virtual machine in a cluster: its name is unique per cluster and tenant; status, role,
 * platform, vCPUs, memory (MB) and disk (GB); primary IPv4/IPv6 from its own interfaces'
 * addresses. Its location is its cluster's (filter `location`). Left out until their models
 * exist: software version and image files, config contexts and their schema.
 */
export const virtualMachineResource = defineResource({
  app: 'virtualization',
  model: 'virtualmachine',
  // Read by a location's counts or every model's tags: kept with a detail (serialize/kept-values.ts).
  watched: true,
  slug: 'virtual-machines',
  verboseName: 'virtual machine',
  naturalKey: ['cluster', 'tenant', 'name'],
  ordering: ['name'],
  display: (r) => String(r.name),
  mixins: [statusMixin({ defaults: VIRTUAL_MACHINE_STATUSES }), roleMixin(), tenancyMixin(), primaryIpMixin(VM_PRIMARY_IPS)],
  fields: {
    cluster: field.foreignKey(() => clusterResource, { required: true, onDelete: 'protect', relatedName: 'virtual_machines' }),
    platform: field.foreignKey(() => platformResource, { nullable: true, onDelete: 'setNull', relatedName: 'virtual_machines' }),
    ...softwareFields({ related: 'virtual_machines', link: 'virtualization_virtualmachine_software_image_files', source: 'virtualmachine_id', what: 'virtual machine' }),
    name: field.string({ required: true, maxLength: 255, index: true }),
    vcpus: field.integer({ nullable: true, minValue: 0, maxValue: 32767, label: 'vCPUs' }),
    memory: field.integer({ nullable: true, minValue: 0, maxValue: 2147483647, label: 'Memory (MB)' }),
    disk: field.integer({ nullable: true, minValue: 0, maxValue: 2147483647, label: 'Disk (GB)' }),
    comments: field.text(),
  },
  uniqueTogether: [
    {
      fields: ['cluster', 'tenant', 'name'],
      nullsEqual: ['tenant'],
      // The reference's own check for a VM without a tenant, else Django's unique-together message.
      field: ([, tenant]) => (tenant === null ? 'name' : '__all__'),
      message: ([, tenant]) => (tenant === null ? 'A virtual machine with this name already exists in the assigned cluster.' : 'Virtual machine with this Cluster, Tenant and Name already exists.'),
    },
  ],
  search: ['name', 'comments'],
  filterAliases: {
    cluster_id: 'cluster',
    cluster_group: 'cluster__cluster_group',
    cluster_group_id: 'cluster__cluster_group',
    cluster_type: 'cluster__cluster_type',
    cluster_type_id: 'cluster__cluster_type',
    location: 'cluster__location',
    platform_id: 'platform',
  },
  filters: {
    /** VMs with an interface (one the requester may view) of this MAC address (any form the field takes). */
    mac_address: { compile: async (values, _l, h) => sql`${h.col('id')} IN ${await withInterfaces(h, inList(ident('i', 'mac_address'), macValues(values, h.invalid)))}` },
    /** VMs with one of these addresses (address or ID) on an interface. */
    ip_addresses: ipAddressesFilter(async (h, ips) => sql`${h.col('id')} IN ${await withInterfaces(h, sql`${ident('i', 'id')} IN ${await assignedInterfaces(h, ips, 'vm_interface_id')}`)}`),
    has_ip_addresses: {
      boolean: true,
      compile: async (values, _l, h) => {
        const some = sql`${h.col('id')} IN ${await withInterfaces(h, sql`${ident('i', 'id')} IN ${await assignedInterfaces(h, null, 'vm_interface_id')}`)}`;
        return values[values.length - 1] ? some : sql`NOT ${some}`;
      },
    },
  },
  features: ['tags', 'customFields', 'notes', 'configContexts'],
});
