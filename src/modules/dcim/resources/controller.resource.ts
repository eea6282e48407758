import { CustomFilter, defineResource, model } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { named, tree } from '../../../core/resource/mixin';
import { descendantIds } from '../../../core/resource/query/tree';
import { inList, join, sql } from '../../../database/sql';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { CONTROLLER_CAPABILITIES, DEVICE_STATUSES } from '../choices';
import { locatedMixin } from '../mixins';
import { platformResource } from './platform.resource';
import { deviceRedundancyGroupResource } from './redundancy.resource';

const CAPABILITY_VALUES: readonly string[] = CONTROLLER_CAPABILITIES.map(([v]) => v);

/** `capabilities`: null or a list of the capability choices (the reference's list of choice fields). */
function capabilityList(v: unknown): string | undefined {
  if (v === null) return undefined;
  if (!Array.isArray(v)) return `Expected a list of items but got type "${typeof v === 'object' ? 'dict' : typeof v === 'string' ? 'str' : typeof v}".`;
  const bad = v.find((c) => typeof c !== 'string' || !CAPABILITY_VALUES.includes(c));
  return bad === undefined ? undefined : `${typeof bad === 'object' ? JSON.stringify(bad) : String(bad)} is not a valid choice.`;
}

/** `capabilities=wireless`: objects listing any of the capabilities given (the reference's choice filter). */
const hasCapability: CustomFilter = {
  compile: (values, _l, h) => {
    const bad = values.find((v) => !CAPABILITY_VALUES.includes(String(v)));
    if (bad !== undefined) h.invalid(`Select a valid choice. ${String(bad)} is not one of the available choices.`);
    return sql`(${join(values.map((v) => h.exec.dialect.jsonArrayHas(h.col('capabilities'), String(v))), ' OR ')})`;
  },
};

const capabilities = (what: string) =>
  field.json({ nullable: true, validate: capabilityList, help: `List of capabilities supported by the ${what}, these capabilities are used to enhance views in Nautobot.` });

/**
 * Something that manages devices (a wireless LAN controller, an SDN controller), in a location,
 * deployed on one device or on a device redundancy group, not both; its managed device groups
 * hold the devices it controls; `external_integration` names the system it is reached through.
 */
export const controllerResource = defineResource({
  app: 'dcim',
  model: 'controller',
  slug: 'controllers',
  mixins: [named(255), statusMixin({ defaults: DEVICE_STATUSES }), roleMixin(), tenancyMixin(), locatedMixin()],
  fields: {
    description: field.string({ maxLength: 255 }),
    platform: field.foreignKey(() => platformResource, { nullable: true, onDelete: 'setNull', relatedName: 'controllers' }),
    capabilities: capabilities('controller'),
    external_integration: field.foreignKey(model('extras.externalintegration'), { nullable: true, onDelete: 'protect', relatedName: 'controllers' }),
    controller_device: field.foreignKey(model('dcim.device'), { nullable: true, onDelete: 'protect', relatedName: 'controllers' }),
    controller_device_redundancy_group: field.foreignKey(() => deviceRedundancyGroupResource, { nullable: true, onDelete: 'protect', relatedName: 'controllers' }),
  },
  search: ['description'],
  filters: { capabilities: hasCapability },
  features: ['tags', 'customFields', 'notes'],
  rules(s): FieldErrors | void {
    if (s.values.controller_device_id && s.values.controller_device_redundancy_group_id) {
      return { controller_device: ['Cannot assign both a device and a device redundancy group to a controller.'] };
    }
  },
});

/**
 * Devices a controller manages, grouped as a tree (`parent`), sorted by weight within their
 * parent: a child group has its parent's controller. Devices join through their
 * `controller_managed_device_group`.
 */
export const controllerManagedDeviceGroupResource = defineResource({
  app: 'dcim',
  model: 'controllermanageddevicegroup',
  slug: 'controller-managed-device-groups',
  verboseName: 'controller managed device group',
  mixins: [named(255), tree(), tenancyMixin()],
  ordering: ['weight'],
  fields: {
    description: field.string({ maxLength: 255 }),
    weight: field.integer({ default: 1000, minValue: 0, maxValue: 2147483647, help: 'Weight of the controller device group, used to sort the groups within its parent group' }),
    controller: field.foreignKey(() => controllerResource, { required: true, onDelete: 'cascade', help: 'Controller that manages the devices in this group' }),
    // Set through the wireless app's assignments (read-only here, as the reference shows them).
    radio_profiles: field.manyToMany(
      model('wireless.radioprofile'),
      { table: 'wireless_controllermanageddevicegroupradioprofileassignment', source: 'controller_managed_device_group_id', target: 'radio_profile_id' },
      { readOnly: true, relatedName: 'controller_managed_device_groups' },
    ),
    wireless_networks: field.manyToMany(
      model('wireless.wirelessnetwork'),
      { table: 'wireless_controllermanageddevicegroupwirelessnetworkassignment', source: 'controller_managed_device_group_id', target: 'wireless_network_id' },
      { readOnly: true, relatedName: 'controller_managed_device_groups' },
    ),
    capabilities: capabilities('controller device group'),
  },
  filters: {
    capabilities: hasCapability,
    /** The given groups and every group below them. */
    subtree: {
      lookups: ['n'],
      compile: async (values, _l, h) => inList(h.col('id'), await descendantIds(h.exec, controllerManagedDeviceGroupResource, await h.resolveIds(controllerManagedDeviceGroupResource, values))),
    },
  },
  features: ['tags', 'customFields', 'notes'],
  rules(s): FieldErrors | void {
    if (!(s.create || s.touched.has('controller') || s.touched.has('parent'))) return;
    const parent = s.related('parent');
    if (parent && String(parent.controller_id) !== String(s.values.controller_id)) {
      return { controller: ['Controller device group must have the same controller as the parent group.'] };
    }
  },
});
