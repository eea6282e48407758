import { defineApp } from '../../core/resource/app';
import { cloudNetworkPrefixAssignmentResource, cloudServiceNetworkAssignmentResource } from './resources/assignments.resource';
import { cloudAccountResource } from './resources/cloud-account.resource';
import { cloudNetworkResource } from './resources/cloud-network.resource';
import { cloudResourceTypeResource } from './resources/cloud-resource-type.resource';
import { cloudServiceResource } from './resources/cloud-service.resource';

/** Cloud accounts, resource types, networks and services, and the links of networks to prefixes and of services to networks. */
export const cloudApp = defineApp({
  label: 'cloud',
  resources: [
    cloudAccountResource,
    cloudNetworkPrefixAssignmentResource,
    cloudNetworkResource,
    cloudResourceTypeResource,
    cloudServiceNetworkAssignmentResource,
    cloudServiceResource,
  ],
});
