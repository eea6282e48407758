import { defineApp } from '../../core/resource/app';
import { clusterGroupResource, clusterTypeResource } from './resources/cluster-groups.resource';
import { clusterResource } from './resources/cluster.resource';
import { virtualMachineResource } from './resources/virtual-machine.resource';
import { vmInterfaceResource } from './resources/vm-interface.resource';

export const virtualizationApp = defineApp({
  label: 'virtualization',
  resources: [clusterTypeResource, clusterGroupResource, clusterResource, virtualMachineResource, vmInterfaceResource],
});
