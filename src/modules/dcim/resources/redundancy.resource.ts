import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { link, named } from '../../../core/resource/mixin';
import { FALSE, ident, inList, sql } from '../../../database/sql';
import { statusMixin } from '../../extras/mixins';
import { FAILOVER_STRATEGIES, REDUNDANCY_GROUP_STATUSES, REDUNDANCY_PROTOCOLS } from '../choices';
import { interfaceResource } from './interface.resource';

/**
 * Devices grouped for high availability (a firewall pair), with a failover strategy: devices
 * join through their `device_redundancy_group` and `device_redundancy_group_priority`, and a
 * controller may run on the group; its `secrets_group` holds the group's credentials.
 */
export const deviceRedundancyGroupResource = defineResource({
  app: 'dcim',
  model: 'deviceredundancygroup',
  slug: 'device-redundancy-groups',
  verboseName: 'device redundancy group',
  mixins: [named(255), statusMixin({ defaults: REDUNDANCY_GROUP_STATUSES })],
  fields: {
    description: field.string({ maxLength: 255 }),
    failover_strategy: field.choice(FAILOVER_STRATEGIES, { maxLength: 50, default: '', label: 'Failover strategy' }),
    comments: field.text(),
    secrets_group: field.foreignKey(model('extras.secretsgroup'), { nullable: true, onDelete: 'setNull', relatedName: 'device_redundancy_groups' }),
  },
  search: ['comments'],
  features: ['tags', 'customFields', 'notes'],
});

/**
 * Interfaces sharing a virtual address through a first-hop redundancy protocol (HSRP, VRRP),
 * each with a priority (interface-redundancy-group-associations). `interfaces` lists the group's
 * associations, as the reference shows them.
 */
export const interfaceRedundancyGroupResource = defineResource({
  app: 'dcim',
  model: 'interfaceredundancygroup',
  slug: 'interface-redundancy-groups',
  verboseName: 'interface redundancy group',
  mixins: [named(255), statusMixin({ defaults: REDUNDANCY_GROUP_STATUSES })],
  fields: {
    description: field.string({ maxLength: 255 }),
    // The reference's serializer declares the protocol without a blank choice: required.
    protocol: field.choice(REDUNDANCY_PROTOCOLS, { required: true, maxLength: 50, label: 'Redundancy Protocol' }),
    protocol_group_id: field.string({ maxLength: 255 }),
    secrets_group: field.foreignKey(model('extras.secretsgroup'), { nullable: true, onDelete: 'setNull' }),
    virtual_ip: field.foreignKey(model('ipam.ipaddress'), { nullable: true, onDelete: 'cascade', relatedName: 'interface_redundancy_groups' }),
    interfaces: field.manyToMany(
      model('dcim.interfaceredundancygroupassociation'),
      { table: 'dcim_interfaceredundancygroupassociation', source: 'interface_redundancy_group_id', target: 'id' },
      { readOnly: true, filter: false, relatedName: 'interface_redundancy_group_lists' },
    ),
  },
  filters: {
    /** Groups with any of these interfaces (name or ID). */
    interfaces: {
      lookups: ['n'],
      compile: async (values, _l, h) => {
        const ids = await h.resolveIds(interfaceResource, values);
        if (!ids.length) return FALSE;
        // Through the associations the requester may view.
        return sql`${h.col('id')} IN ${(await h.rows(interfaceRedundancyGroupAssociationResource, 'ra')).select('interface_redundancy_group_id', inList(ident('ra', 'interface_id'), ids))}`;
      },
    },
  },
  features: ['tags', 'customFields', 'notes'],
});

/** An interface in an interface redundancy group, with its priority there (once per group). */
export const interfaceRedundancyGroupAssociationResource = defineResource({
  app: 'dcim',
  model: 'interfaceredundancygroupassociation',
  slug: 'interface-redundancy-group-associations',
  verboseName: 'interface redundancy group association',
  mixins: [
    link(
      { name: 'interface_redundancy_group', target: () => interfaceRedundancyGroupResource, relatedName: 'interface_redundancy_group_associations' },
      { name: 'interface', target: () => interfaceResource, relatedName: 'interface_redundancy_group_associations' },
    ),
  ],
  ordering: ['interface_redundancy_group', '-priority'],
  // "<group>: <device> <interface>: <priority>", as the reference names one.
  display: (r, h) => {
    const i = h.related('interface');
    return `${h.related('interface_redundancy_group')?.name ?? ''}: ${i?.device__name ?? ''} ${i?.name ?? ''}: ${r.priority}`;
  },
  displayUses: { interface_redundancy_group: ['name'], interface: ['name', 'device__name'] },
  fields: {
    priority: field.integer({ required: true, minValue: 0, maxValue: 32767 }),
  },
  search: ['interface_redundancy_group__name', 'interface__name'],
  features: [],
});
