import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';

/** A company that provides circuits (a carrier): its AS number, account and contacts. */
export const providerResource = defineResource({
  app: 'circuits',
  model: 'provider',
  slug: 'providers',
  mixins: [named(255)],
  fields: {
    asn: field.integer({ minValue: 1, maxValue: 4294967295, nullable: true, label: 'ASN', help: '32-bit autonomous system number' }),
    account: field.string({ maxLength: 255, label: 'Account number' }),
    portal_url: field.url({ label: 'Portal URL' }),
    noc_contact: field.text({ label: 'NOC contact' }),
    admin_contact: field.text({ label: 'Admin contact' }),
    comments: field.text(),
    circuit_count: field.count('circuits.circuit', 'provider'),
  },
  search: ['account', 'noc_contact', 'admin_contact', 'comments'],
  // Providers with a circuit that ends in the location or below it.
  filterAliases: { location: 'circuits__circuit_terminations__location' },
  features: ['tags', 'customFields', 'notes'],
});
