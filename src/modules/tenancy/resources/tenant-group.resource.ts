import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named, tree } from '../../../core/resource/mixin';

export const tenantGroupResource = defineResource({
  app: 'tenancy',
  model: 'tenantgroup',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'tenant-groups',
  verboseName: 'tenant group',
  mixins: [named(), tree()],
  fields: {
    description: field.string({ maxLength: 200 }),
  },
  search: ['description'],
  features: ['customFields', 'notes'],
});
