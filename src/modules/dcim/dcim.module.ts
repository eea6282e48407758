import { defineApp } from '../../core/resource/app';
import { locationTypeResource } from './resources/location-type.resource';
import { locationResource } from './resources/location.resource';
import { manufacturerResource } from './resources/manufacturer.resource';
import { platformResource } from './resources/platform.resource';

export const dcimApp = defineApp({ label: 'dcim', resources: [locationTypeResource, locationResource, manufacturerResource, platformResource] });
