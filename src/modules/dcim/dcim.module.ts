import { defineApp } from '../../core/resource/app';
import { ElevationController } from './elevation.controller';
import { RackOccupancy } from './elevation';
import { locationTypeResource } from './resources/location-type.resource';
import { locationResource } from './resources/location.resource';
import { manufacturerResource } from './resources/manufacturer.resource';
import { platformResource } from './resources/platform.resource';
import { powerFeedResource } from './resources/power-feed.resource';
import { powerPanelResource } from './resources/power-panel.resource';
import { rackGroupResource } from './resources/rack-group.resource';
import { rackReservationResource } from './resources/rack-reservation.resource';
import { rackResource } from './resources/rack.resource';

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
    powerPanelResource,
    powerFeedResource,
  ],
  controllers: [ElevationController],
  providers: [RackOccupancy],
  exports: [RackOccupancy],
});
