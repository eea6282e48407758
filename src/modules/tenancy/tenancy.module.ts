import { Module } from '@nestjs/common';
import { createResourceController } from '../../core/resource/resource-controller.factory';
import { TenantGroup } from './entities/tenant-group.entity';
import { Tenant } from './entities/tenant.entity';
import { tenantGroupResource } from './resources/tenant-group.resource';
import { tenantResource } from './resources/tenant.resource';

export const tenancyResources = [tenantGroupResource, tenantResource];
export const tenancyEntities = [TenantGroup, Tenant];

@Module({ controllers: tenancyResources.map(createResourceController) })
export class TenancyModule {}
