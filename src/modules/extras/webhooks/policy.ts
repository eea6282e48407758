import type { Settings } from '../../../config/settings';
import type { WebhookUrlPolicy } from './url-policy';

/** The webhook URL policy the settings give. */
export function webhookPolicy(s: Settings): WebhookUrlPolicy {
  return {
    schemes: s.WEBHOOK_ALLOWED_SCHEMES,
    allowedHosts: s.WEBHOOK_ALLOWED_HOSTS,
    blockedNetworks: s.WEBHOOK_ADDITIONAL_BLOCKED_NETWORKS,
    allowedNetworks: s.WEBHOOK_ALLOWED_NETWORKS,
  };
}
