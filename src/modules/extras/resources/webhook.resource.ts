import { defineResource, type ResourceDefinition } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { templates } from '../../../core/template/template';
import { HTTP_METHODS } from './external-integration.resource';
import { ident, inList, sql } from '../../../database/sql';
import { validateWebhookUrlFormat, WebhookUrlError } from '../webhooks/url-policy';
import { webhookPolicy } from '../webhooks/policy';

const ACTIONS = [
  ['type_create', 'create'],
  ['type_update', 'update'],
  ['type_delete', 'delete'],
] as const;

/** Models a webhook may watch: those clients write, except accounts, tokens and permissions (users) and identity records, as in the reference. */
const webhookable = (d: ResourceDefinition) => !d.readOnly && d.app !== 'users' && d.app !== 'identity';

/**
 * A request sent to a remote system when objects of the listed types are created, updated or
 * deleted (Nautobot's Webhook). Deliveries happen after the write commits, by the worker, with
 * retries; `webhooks/dispatch.ts` finds the webhooks a change triggers.
 */
export const webhookResource = defineResource({
  app: 'extras',
  model: 'webhook',
  watched: true,
  slug: 'webhooks',
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    content_types: field.contentTypes({ table: 'extras_webhook_content_types', source: 'webhook_id' }, webhookable, {
      required: true,
      label: 'Object types',
      help: 'The object(s) to which this Webhook applies.',
    }),
    name: field.string({ required: true, unique: true, maxLength: 255 }),
    type_create: field.boolean({ help: 'Call this webhook when a matching object is created.' }),
    type_update: field.boolean({ help: 'Call this webhook when a matching object is updated.' }),
    type_delete: field.boolean({ help: 'Call this webhook when a matching object is deleted.' }),
    payload_url: field.string({ required: true, maxLength: 500, label: 'URL', help: 'A POST will be sent to this URL when the webhook is called.' }),
    enabled: field.boolean({ default: true }),
    http_method: field.choice(HTTP_METHODS, { default: 'POST', maxLength: 30, label: 'HTTP method' }),
    http_content_type: field.string({ default: 'application/json', maxLength: 255, label: 'HTTP content type', help: 'The complete list of official content types is available at https://www.iana.org/assignments/media-types/media-types.xhtml.' }),
    additional_headers: field.text({
      help: 'User-supplied HTTP headers to be sent with the request in addition to the HTTP content type. Headers should be defined in the format Name: Value. Template processing is supported with the same context as the request body (below).',
    }),
    body_template: field.text({
      help: 'Template for a custom request body. If blank, a JSON object representing the change will be included. Available context data includes: event, model, timestamp, username, request_id, and data.',
    }),
    secret: field.string({
      maxLength: 255,
      help: "When provided, the request will include a 'X-Hook-Signature' header containing a HMAC hex digest of the payload body using the secret as the key. The secret is not transmitted in the request.",
    }),
    ssl_verification: field.boolean({ default: true, label: 'SSL verification', help: 'Enable SSL certificate verification. Disable with caution!' }),
    ca_file_path: field.string({ maxLength: 4096, label: 'CA File Path', help: 'The specific CA certificate file to use for SSL verification. Leave blank to use the system defaults.' }),
  },
  search: ['name', 'payload_url', 'additional_headers', 'body_template'],
  features: ['notes'],
  async rules(s, { exec, ctx }) {
    const v = s.values;
    if (!v.type_create && !v.type_update && !v.type_delete) return { non_field_errors: ['You must select at least one type: create, update, and/or delete.'] };
    const errors: Record<string, string[]> = {};
    for (const key of ['additional_headers', 'body_template'] as const) {
      const problem = v[key] ? templates.validate(String(v[key])) : null;
      if (problem) errors[key] = [`Template syntax error: ${problem}`];
    }
    if (!v.ssl_verification && v.ca_file_path) errors.ca_file_path = ['Do not specify a CA certificate file if SSL verification is disabled.'];
    try {
      validateWebhookUrlFormat(String(v.payload_url ?? ''), webhookPolicy(ctx.settings));
    } catch (e) {
      if (!(e instanceof WebhookUrlError)) throw e;
      errors.payload_url = [e.message];
    }
    // Two webhooks may not send the same action of the same type to the same URL.
    const types = await s.linked('content_types');
    if (types.length) {
      const others = await exec.query<Record<string, unknown>>(
        sql`SELECT c.${ident('content_type')}, w.${ident('type_create')}, w.${ident('type_update')}, w.${ident('type_delete')}
            FROM ${ident('extras_webhook')} w JOIN ${ident('extras_webhook_content_types')} c ON c.${ident('webhook_id')} = w.${ident('id')}
            WHERE w.${ident('payload_url')} = ${String(v.payload_url)} AND ${inList(sql`c.${ident('content_type')}`, types)}
            ${s.existing ? sql`AND w.${ident('id')} <> ${String(s.existing.id)}` : sql``}`,
      );
      for (const type of types) {
        const def = ctx.registry.get(type);
        const label = def ? `${def.appLabel ?? def.app} | ${def.verboseName}` : type;
        for (const [flag, action] of ACTIONS) {
          if (v[flag] && others.some((o) => o.content_type === type && !!Number(o[flag]))) {
            (errors[flag] ??= []).push(`A webhook already exists for ${action} on ${label} to URL ${v.payload_url}`);
          }
        }
      }
    }
    return errors;
  },
});
