import { defineApp } from '../../core/resource/app';
import { tenantGroupResource } from './resources/tenant-group.resource';
import { tenantResource } from './resources/tenant.resource';

export const tenancyApp = defineApp({ label: 'tenancy', resources: [tenantGroupResource, tenantResource] });
