import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { manufacturerResource } from '../../dcim/resources/manufacturer.resource';

/**
 * An account with a cloud provider (a manufacturer stands for the provider): its networks and
 * services belong to it, and a secrets group may hold its credentials.
 */
export const cloudAccountResource = defineResource({
  app: 'cloud',
  model: 'cloudaccount',
  slug: 'cloud-accounts',
  verboseName: 'cloud account',
  mixins: [named(255)],
  display: (r, h) => `${h.related('provider')?.name ?? 'None'}: ${r.name} - ${r.account_number}`,
  displayUses: { provider: ['name'] },
  fields: {
    description: field.string({ maxLength: 255 }),
    account_number: field.string({ required: true, maxLength: 255, help: 'The account identifier of this Cloud Account.' }),
    provider: field.foreignKey(() => manufacturerResource, {
      required: true,
      onDelete: 'protect',
      relatedName: 'cloud_accounts',
      help: 'The Manufacturer instance which represents the Cloud Provider',
    }),
    secrets_group: field.foreignKey(model('extras.secretsgroup'), { nullable: true, onDelete: 'setNull' }),
  },
  search: ['description', 'account_number', 'provider__name'],
  features: ['tags', 'customFields', 'notes'],
});
