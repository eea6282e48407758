import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { locationResource } from '../../dcim/resources/location.resource';
import { Namespace } from '../entities/namespace.entity';

export const namespaceResource = defineResource({
  app: 'ipam',
  model: 'namespace',
  slug: 'namespaces',
  table: 'ipam_namespace',
  entity: Namespace,
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    name: field.string({ required: true, unique: true }),
    description: field.string(),
    location: field.foreignKey(() => locationResource, { nullable: true, onDelete: 'protect' }),
  },
  search: ['name', 'description'],
  features: ['tags', 'customFields', 'notes', 'locations'],
});
