import { defineResource, model } from '../../../core/resource/definition';
import { link } from '../../../core/resource/mixin';
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
  mixins: [
    link(
      { name: 'controller_managed_device_group', target: GROUP, relatedName: 'radio_profile_assignments' },
      { name: 'radio_profile', target: () => radioProfileResource, relatedName: 'controller_managed_device_group_assignments' },
    ),
  ],
  fields: {},
  search: ['controller_managed_device_group__name', 'radio_profile__name'],
  features: [],
});

/** A wireless network given to a controller managed device group, optionally on a VLAN (the through model of the group's `wireless_networks`); once per group and network. */
export const wirelessNetworkAssignmentResource = defineResource({
  app: 'wireless',
  model: 'controllermanageddevicegroupwirelessnetworkassignment',
  slug: 'controller-managed-device-group-wireless-network-assignments',
  verboseName: 'controller managed device group wireless network assignment',
  mixins: [
    link(
      { name: 'controller_managed_device_group', target: GROUP, relatedName: 'wireless_network_assignments' },
      { name: 'wireless_network', target: () => wirelessNetworkResource, relatedName: 'controller_managed_device_group_assignments' },
    ),
  ],
  fields: {
    vlan: field.foreignKey(model('ipam.vlan'), { nullable: true, onDelete: 'protect', relatedName: 'controller_managed_device_group_wireless_network_assignments', label: 'VLAN' }),
  },
  search: ['controller_managed_device_group__name', 'wireless_network__name'],
  features: [],
});
