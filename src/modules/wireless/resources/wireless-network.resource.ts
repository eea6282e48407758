import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { tenancyMixin } from '../../tenancy/mixins';
import { NETWORK_AUTHENTICATIONS, NETWORK_MODES } from '../choices';

/**
 * A wireless network (an SSID with its mode and authentication) that access points broadcast;
 * controller managed device groups take networks through
 * controller-managed-device-group-wireless-network-assignments. Its `secrets_group` (the
 * network's keys) is protected while the network uses it.
 */
export const wirelessNetworkResource = defineResource({
  app: 'wireless',
  model: 'wirelessnetwork',
  slug: 'wireless-networks',
  verboseName: 'wireless network',
  mixins: [named(255), tenancyMixin()],
  fields: {
    description: field.string({ maxLength: 255 }),
    ssid: field.string({ required: true, maxLength: 255, label: 'SSID' }),
    mode: field.choice(NETWORK_MODES, { required: true, maxLength: 255 }),
    enabled: field.boolean({ default: true }),
    authentication: field.choice(NETWORK_AUTHENTICATIONS, { required: true, maxLength: 255 }),
    secrets_group: field.foreignKey(model('extras.secretsgroup'), { nullable: true, onDelete: 'protect', relatedName: 'wireless_networks' }),
    hidden: field.boolean({ default: false }),
  },
  search: ['description', 'ssid'],
  features: ['tags', 'customFields', 'notes'],
});
