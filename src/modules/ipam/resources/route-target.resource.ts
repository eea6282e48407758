import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { RouteTarget } from '../entities/route-target.entity';
import { tenantField } from './common';

export const routeTargetResource = defineResource({
  app: 'ipam',
  model: 'routetarget',
  slug: 'route-targets',
  table: 'ipam_routetarget',
  entity: RouteTarget,
  verboseName: 'route target',
  verboseNamePlural: 'route targets',
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    name: field.string({ required: true, unique: true, help: 'Route target value (formatted in accordance with RFC 4360)' }),
    description: field.string(),
    tenant: tenantField(),
  },
  search: ['name', 'description'],
  features: ['tags', 'customFields', 'notes'],
});
