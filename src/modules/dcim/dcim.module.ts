import { Module } from '@nestjs/common';
import { createResourceController } from '../../core/resource/resource-controller.factory';
import { LocationType } from './entities/location-type.entity';
import { Location } from './entities/location.entity';
import { locationTypeResource } from './resources/location-type.resource';
import { locationResource } from './resources/location.resource';

export const dcimResources = [locationTypeResource, locationResource];
export const dcimEntities = [LocationType, Location];

@Module({ controllers: dcimResources.map(createResourceController) })
export class DcimModule {}
