import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { tenancyMixin } from '../../tenancy/mixins';
import { named } from '../../../core/resource/mixin';


export const routeTargetResource = defineResource({
  app: 'ipam',
  model: 'routetarget',
  slug: 'route-targets',
  verboseName: 'route target',
  verboseNamePlural: 'route targets',
  mixins: [named(21), tenancyMixin()],
  fields: {
    name: field.string({ required: true, unique: true, maxLength: 21, help: 'Route target value (formatted in accordance with RFC 4360)' }),
    description: field.string({ maxLength: 255 }),
  },
  search: ['description'],
  features: ['tags', 'customFields', 'notes'],
});
