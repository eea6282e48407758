import { defineApp } from '../../core/resource/app';
import { radioProfileAssignmentResource, wirelessNetworkAssignmentResource } from './resources/assignments.resource';
import { radioProfileResource, supportedDataRateResource } from './resources/radio-profile.resource';
import { wirelessNetworkResource } from './resources/wireless-network.resource';

/** Radio profiles, their supported data rates, wireless networks, and their assignments to controller managed device groups. */
export const wirelessApp = defineApp({
  label: 'wireless',
  resources: [radioProfileAssignmentResource, wirelessNetworkAssignmentResource, supportedDataRateResource, radioProfileResource, wirelessNetworkResource],
});
