import { defineApp } from '../../core/resource/app';
import { locationTypeResource } from './resources/location-type.resource';
import { locationResource } from './resources/location.resource';

export const dcimApp = defineApp({ label: 'dcim', resources: [locationTypeResource, locationResource] });
