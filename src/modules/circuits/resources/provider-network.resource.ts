import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { providerResource } from './provider.resource';

/** A provider's network that circuits may end on (an MPLS cloud, an internet exchange): its name is unique per provider. */
export const providerNetworkResource = defineResource({
  app: 'circuits',
  model: 'providernetwork',
  slug: 'provider-networks',
  verboseName: 'provider network',
  naturalKey: ['provider', 'name'],
  ordering: ['provider', 'name'],
  display: (r, h) => `${h.related('provider')?.name ?? ''} ${r.name}`,
  displayUses: { provider: ['name'] },
  fields: {
    name: field.string({ required: true, maxLength: 255, index: true }),
    provider: field.foreignKey(() => providerResource, { required: true, onDelete: 'protect', relatedName: 'provider_networks' }),
    description: field.string({ maxLength: 255 }),
    comments: field.text(),
  },
  uniqueTogether: [{ fields: ['provider', 'name'] }],
  search: ['name', 'description', 'comments'],
  features: ['tags', 'customFields', 'notes'],
});
