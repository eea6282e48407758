import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { radioProfileResource } from './radio-profile.resource';
import { wirelessNetworkResource } from './wireless-network.resource';

const GROUP = model('dcim.controllermanageddevicegroup');

/** A radio profile given to a controller managed device group (the through model of the group's `radio_profiles`); once per group and profile. */
export const radioProfileAssignmentResource = defineResource({
  app: 'wireless',
  model: 'controllermanageddevicegroupradioprofileassignment',
  slug: 'controller-managed-device-group-radio-profile-assignments',
  verboseName: 'controller managed device group radio profile assignment',
  naturalKey: ['controller_managed_device_group', 'radio_profile'],
  ordering: ['controller_managed_device_group', 'radio_profile'],
  display: (_r, h) => `${h.related('controller_managed_device_group')?.name ?? ''}: ${h.related('radio_profile')?.name ?? ''}`,
  displayUses: { controller_managed_device_group: ['name'], radio_profile: ['name'] },
  fields: {
    controller_managed_device_group: field.foreignKey(GROUP, { required: true, onDelete: 'cascade', relatedName: 'radio_profile_assignments' }),
    radio_profile: field.foreignKey(() => radioProfileResource, { required: true, onDelete: 'cascade', relatedName: 'controller_managed_device_group_assignments' }),
  },
  uniqueTogether: [{ fields: ['controller_managed_device_group', 'radio_profile'] }],
  search: ['controller_managed_device_group__name', 'radio_profile__name'],
  features: [],
});

/** A wireless network given to a controller managed device group, optionally on a VLAN (the through model of the group's `wireless_networks`); once per group and network. */
export const wirelessNetworkAssignmentResource = defineResource({
  app: 'wireless',
  model: 'controllermanageddevicegroupwirelessnetworkassignment',
  slug: 'controller-managed-device-group-wireless-network-assignments',
  verboseName: 'controller managed device group wireless network assignment',
  naturalKey: ['controller_managed_device_group', 'wireless_network'],
  ordering: ['controller_managed_device_group', 'wireless_network'],
  display: (_r, h) => `${h.related('controller_managed_device_group')?.name ?? ''}: ${h.related('wireless_network')?.name ?? ''}`,
  displayUses: { controller_managed_device_group: ['name'], wireless_network: ['name'] },
  fields: {
    controller_managed_device_group: field.foreignKey(GROUP, { required: true, onDelete: 'cascade', relatedName: 'wireless_network_assignments' }),
    wireless_network: field.foreignKey(() => wirelessNetworkResource, { required: true, onDelete: 'cascade', relatedName: 'controller_managed_device_group_assignments' }),
    vlan: field.foreignKey(model('ipam.vlan'), { nullable: true, onDelete: 'protect', relatedName: 'controller_managed_device_group_wireless_network_assignments', label: 'VLAN' }),
  },
  uniqueTogether: [{ fields: ['controller_managed_device_group', 'wireless_network'] }],
  search: ['controller_managed_device_group__name', 'wireless_network__name'],
  features: [],
});
