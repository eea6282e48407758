import { defineApp } from '../../core/resource/app';
import { CABLE_PATH_NODE_TABLE, CABLE_PATH_TABLE } from './cabling/paths';
import { ConnectionsController } from './cabling/connections.controller';
import { pathsController, traceController } from './cabling/trace.controller';
import { cableResource } from './resources/cable.resource';
import { DeviceOccupants } from './device-occupancy';
import { ElevationController } from './elevation.controller';
import { RackOccupancy } from './elevation';
import { deviceBayTemplateResource, moduleBayTemplateResource } from './resources/bay-templates.resource';
import { deviceBayResource, moduleBayResource } from './resources/bays.resource';
import { interfaceResource } from './resources/interface.resource';
import { inventoryItemResource } from './resources/inventory-item.resource';
import { consolePortResource, consoleServerPortResource, frontPortResource, rearPortResource } from './resources/ports.resource';
import { powerOutletResource, powerPortResource } from './resources/power-components.resource';
import { deviceFamilyResource } from './resources/device-family.resource';
import { deviceTypeResource } from './resources/device-type.resource';
import { deviceResource } from './resources/device.resource';
import { interfaceTemplateResource } from './resources/interface-template.resource';
import { locationTypeResource } from './resources/location-type.resource';
import { locationResource } from './resources/location.resource';
import { manufacturerResource } from './resources/manufacturer.resource';
import { platformResource } from './resources/platform.resource';
import { powerFeedResource } from './resources/power-feed.resource';
import { powerPanelResource } from './resources/power-panel.resource';
import { rackGroupResource } from './resources/rack-group.resource';
import { rackReservationResource } from './resources/rack-reservation.resource';
import { rackResource } from './resources/rack.resource';
import { virtualChassisResource } from './resources/virtual-chassis.resource';
import { moduleResource } from './resources/module.resource';
import { moduleFamilyResource, moduleTypeResource } from './resources/module-type.resource';
import { deviceTypeToSoftwareImageFileResource, softwareImageFileResource, softwareVersionResource } from './resources/software.resource';
import { controllerManagedDeviceGroupResource, controllerResource } from './resources/controller.resource';
import { deviceRedundancyGroupResource, interfaceRedundancyGroupAssociationResource, interfaceRedundancyGroupResource } from './resources/redundancy.resource';
import { interfaceVdcAssignmentResource, virtualDeviceContextResource } from './resources/virtual-device-context.resource';
import { consolePortTemplateResource, consoleServerPortTemplateResource, frontPortTemplateResource, rearPortTemplateResource } from './resources/port-templates.resource';
import { powerOutletTemplateResource, powerPortTemplateResource } from './resources/power-templates.resource';

export const dcimApp = defineApp({
  label: 'dcim',
  resources: [
    locationTypeResource,
    locationResource,
    rackGroupResource,
    rackResource,
    rackReservationResource,
    manufacturerResource,
    platformResource,
    deviceFamilyResource,
    deviceTypeResource,
    consolePortTemplateResource,
    consoleServerPortTemplateResource,
    powerPortTemplateResource,
    powerOutletTemplateResource,
    interfaceTemplateResource,
    frontPortTemplateResource,
    rearPortTemplateResource,
    deviceBayTemplateResource,
    moduleBayTemplateResource,
    deviceResource,
    virtualChassisResource,
    consolePortResource,
    consoleServerPortResource,
    powerPortResource,
    powerOutletResource,
    interfaceResource,
    frontPortResource,
    rearPortResource,
    deviceBayResource,
    moduleBayResource,
    inventoryItemResource,
    cableResource,
    powerPanelResource,
    powerFeedResource,
    moduleFamilyResource,
    moduleTypeResource,
    moduleResource,
    softwareVersionResource,
    softwareImageFileResource,
    deviceTypeToSoftwareImageFileResource,
    deviceRedundancyGroupResource,
    controllerResource,
    controllerManagedDeviceGroupResource,
    interfaceRedundancyGroupResource,
    interfaceRedundancyGroupAssociationResource,
    virtualDeviceContextResource,
    interfaceVdcAssignmentResource,
  ],
  tables: [CABLE_PATH_TABLE, CABLE_PATH_NODE_TABLE],
  controllers: [
    ElevationController,
    ConnectionsController,
    // `trace/` of every model a path starts from, `paths/` of the pass-through ports.
    ...[consolePortResource, consoleServerPortResource, powerPortResource, powerOutletResource, interfaceResource, powerFeedResource].map(traceController),
    ...[frontPortResource, rearPortResource].map(pathsController),
  ],
  // The connection lists the reference's dcim root names beside its models.
  rootLinks: ['connected-device', 'console-connections', 'interface-connections', 'power-connections'],
  providers: [RackOccupancy, DeviceOccupants],
  exports: [RackOccupancy],
});
