import { defineApp } from '../../core/resource/app';
import { AvailableController } from './available.controller';
import { IpamBootstrap } from './ipam.bootstrap';
import { ipAddressToInterfaceResource } from './resources/ip-address-to-interface.resource';
import { ipAddressResource } from './resources/ip-address.resource';
import { namespaceResource } from './resources/namespace.resource';
import { prefixResource } from './resources/prefix.resource';
import { rirResource } from './resources/rir.resource';
import { routeTargetResource } from './resources/route-target.resource';
import { vlanGroupResource } from './resources/vlan-group.resource';
import { vlanResource } from './resources/vlan.resource';
import { vrfDeviceAssignmentResource } from './resources/vrf-device-assignment.resource';
import { vrfPrefixAssignmentResource } from './resources/vrf-prefix-assignment.resource';
import { vrfResource } from './resources/vrf.resource';
import { serviceResource } from './resources/service.resource';
import { prefixLocationAssignmentResource, vlanLocationAssignmentResource } from './resources/location-assignments.resource';

export const ipamApp = defineApp({
  label: 'ipam',
  resources: [
    namespaceResource,
    rirResource,
    routeTargetResource,
    vrfResource,
    vlanGroupResource,
    vlanResource,
    vlanLocationAssignmentResource,
    prefixResource,
    prefixLocationAssignmentResource,
    vrfPrefixAssignmentResource,
    vrfDeviceAssignmentResource,
    ipAddressResource,
    ipAddressToInterfaceResource,
    serviceResource,
  ],
  controllers: [AvailableController],
  providers: [IpamBootstrap],
});
