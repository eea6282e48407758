import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { manufacturerResource } from '../../dcim/resources/manufacturer.resource';

/**
 * A kind of cloud object of a provider (a VPC, a subnet, an object store): the models it applies
 * to (cloud networks, cloud services) and the JSON schema their `extra_config` must satisfy.
 */
export const cloudResourceTypeResource = defineResource({
  app: 'cloud',
  model: 'cloudresourcetype',
  slug: 'cloud-resource-types',
  verboseName: 'cloud resource type',
  mixins: [named(255)],
  display: (r, h) => `${h.related('provider')?.name ?? 'None'}: ${r.name}`,
  displayUses: { provider: ['name'] },
  fields: {
    description: field.string({ maxLength: 255 }),
    provider: field.foreignKey(() => manufacturerResource, {
      required: true,
      onDelete: 'protect',
      relatedName: 'cloud_resource_types',
      help: 'The Manufacturer instance which represents the Cloud Provider',
    }),
    config_schema: field.json({ nullable: true }),
    content_types: field.contentTypes({ table: 'cloud_cloudresourcetype_content_types', source: 'cloudresourcetype_id' }, (d) => d.features.includes('cloudResourceTypes'), {
      required: true,
      label: 'Content types',
      help: 'The content type(s) to which this model applies.',
    }),
  },
  search: ['description', 'provider__name'],
  features: ['tags', 'customFields', 'notes'],
});
