import { Module } from '@nestjs/common';
import { createResourceController } from '../../core/resource/resource-controller.factory';
import { AvailableController } from './available.controller';
import { IpAddressToInterface } from './entities/ip-address-to-interface.entity';
import { IpAddress } from './entities/ip-address.entity';
import { Namespace } from './entities/namespace.entity';
import { Prefix } from './entities/prefix.entity';
import { Rir } from './entities/rir.entity';
import { RouteTarget } from './entities/route-target.entity';
import { VlanGroup } from './entities/vlan-group.entity';
import { Vlan } from './entities/vlan.entity';
import { VrfPrefixAssignment } from './entities/vrf-prefix-assignment.entity';
import { Vrf } from './entities/vrf.entity';
import { IpamBootstrap } from './ipam.bootstrap';
import { ipAddressToInterfaceResource } from './resources/ip-address-to-interface.resource';
import { ipAddressResource } from './resources/ip-address.resource';
import { namespaceResource } from './resources/namespace.resource';
import { prefixResource } from './resources/prefix.resource';
import { rirResource } from './resources/rir.resource';
import { routeTargetResource } from './resources/route-target.resource';
import { vlanGroupResource } from './resources/vlan-group.resource';
import { vlanResource } from './resources/vlan.resource';
import { vrfPrefixAssignmentResource } from './resources/vrf-prefix-assignment.resource';
import { vrfResource } from './resources/vrf.resource';

export const ipamResources = [
  namespaceResource,
  rirResource,
  routeTargetResource,
  vrfResource,
  vlanGroupResource,
  vlanResource,
  prefixResource,
  vrfPrefixAssignmentResource,
  ipAddressResource,
  ipAddressToInterfaceResource,
];
export const ipamEntities = [Namespace, Rir, RouteTarget, Vrf, VlanGroup, Vlan, Prefix, VrfPrefixAssignment, IpAddress, IpAddressToInterface];

@Module({
  // The special endpoints first: their paths are deeper than the generated detail routes.
  controllers: [AvailableController, ...ipamResources.map(createResourceController)],
  providers: [IpamBootstrap],
})
export class IpamModule {}
