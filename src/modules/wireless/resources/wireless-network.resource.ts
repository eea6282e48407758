import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { tenancyMixin } from '../../tenancy/mixins';
import { NETWORK_AUTHENTICATIONS, NETWORK_MODES } from '../choices';

/**
 * A wireless network (an SSID with its mode and authentication) that access points broadcast;
 * controller managed device groups take networks through
 * controller-managed-device-group-wireless-network-assignments. The reference's `secrets_group`
 * (an extras model netkeel lacks) is left out.
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
    hidden: field.boolean({ default: false }),
  },
  search: ['description', 'ssid'],
  features: ['tags', 'customFields', 'notes'],
});
