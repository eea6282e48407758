import { defineApp } from '../../core/resource/app';
import { deviceBayTemplateResource, moduleBayTemplateResource } from './resources/bay-templates.resource';
import { deviceFamilyResource } from './resources/device-family.resource';
import { deviceTypeResource } from './resources/device-type.resource';
import { interfaceTemplateResource } from './resources/interface-template.resource';
import { locationTypeResource } from './resources/location-type.resource';
import { locationResource } from './resources/location.resource';
import { manufacturerResource } from './resources/manufacturer.resource';
import { platformResource } from './resources/platform.resource';
import { consolePortTemplateResource, consoleServerPortTemplateResource, frontPortTemplateResource, rearPortTemplateResource } from './resources/port-templates.resource';
import { powerOutletTemplateResource, powerPortTemplateResource } from './resources/power-templates.resource';

export const dcimApp = defineApp({
  label: 'dcim',
  resources: [
    locationTypeResource,
    locationResource,
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
  ],
});
