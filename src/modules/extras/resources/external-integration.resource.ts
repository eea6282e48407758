import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { sql } from '../../../database/sql';
import { secretsGroupResource } from './secret.resource';

/** The reference's WebhookHttpMethodChoices. */
export const HTTP_METHODS = [
  ['GET', 'GET'],
  ['POST', 'POST'],
  ['PUT', 'PUT'],
  ['PATCH', 'PATCH'],
  ['DELETE', 'DELETE'],
] as const;

/**
 * A system netkeel's objects refer to (a software repository, a controller's API): its URL,
 * how to reach it, and the secrets group holding its credentials (protected while in use).
 * netkeel stores these for its clients and never connects to the URL itself, nor reads
 * `ca_file_path`.
 */
export const externalIntegrationResource = defineResource({
  app: 'extras',
  model: 'externalintegration',
  slug: 'external-integrations',
  verboseName: 'external integration',
  mixins: [named(255)],
  display: (r) => `${r.name} (${r.remote_url})`,
  fields: {
    remote_url: field.url({ lax: true, required: true, maxLength: 500, label: 'Remote URL' }),
    secrets_group: field.foreignKey(() => secretsGroupResource, {
      nullable: true,
      onDelete: 'protect',
      help: 'Credentials used for authenticating with the remote system',
    }),
    verify_ssl: field.boolean({ default: true, label: 'Verify SSL', help: 'Verify SSL certificates when connecting to the remote system' }),
    timeout: field.integer({ default: 30, minValue: 0, maxValue: 2147483647, help: 'Number of seconds to wait for a response' }),
    extra_config: field.json({ nullable: true, help: 'Optional user-defined JSON data for this integration' }),
    http_method: field.choice(HTTP_METHODS, { maxLength: 10, default: '', label: 'HTTP method' }),
    headers: field.json({ nullable: true, help: 'Headers for the HTTP request' }),
    ca_file_path: field.string({ maxLength: 255, label: 'CA file path' }),
  },
  search: ['remote_url'],
  filters: {
    has_secrets_group: {
      boolean: true,
      compile: (values, _l, h) => (values[values.length - 1] ? sql`${h.col('secrets_group_id')} IS NOT NULL` : sql`${h.col('secrets_group_id')} IS NULL`),
    },
  },
  features: ['tags', 'customFields', 'notes'],
});
