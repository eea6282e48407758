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
  // "<provider> <name>"; the name alone where the provider is not at hand (a delete's message names it as the reference's str()).
  display: (r, h) => {
    const provider = h.related('provider')?.name;
    return provider ? `${provider} ${r.name}` : r.name;
  },
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
