import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { locationResource } from '../../dcim/resources/location.resource';

export const namespaceResource = defineResource({
  app: 'ipam',
  model: 'namespace',
  // Nested at depth 1 by many models: its objects are kept between requests (serialize/kept-nested.ts).
  watched: true,
  slug: 'namespaces',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255 }),
    location: field.foreignKey(() => locationResource, { nullable: true, onDelete: 'protect' }),
  },
  search: ['description'],
  features: ['tags', 'customFields', 'notes', 'locations'],
});
