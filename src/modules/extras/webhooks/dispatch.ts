import type { Executor } from '../../../database/db';
import { ident, sql } from '../../../database/sql';
import type { ExtensionContext } from '../../../core/resource/extension';
import type { ChangeEvent } from '../change-log/listeners';
import { pythonTimestamp, snapshots } from '../change-log/snapshots';
import type { WebhookContext } from './deliver';
import { storedBoolean } from '../../../core/resource/serialize/values';

/** One request to send: a webhook and the change it reports. */
export interface WebhookDelivery {
  webhookId: string;
  context: WebhookContext;
}

const FLAG = { create: 'type_create', update: 'type_update', delete: 'type_delete' } as const;
const EVENT = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/** An enabled webhook, once per content type it lists. */
export interface WebhookRow {
  id: string;
  content_type: string;
  type_create: unknown;
  type_update: unknown;
  type_delete: unknown;
}

/** Every enabled webhook by content type, in name order: one statement (the dispatcher keeps it in a watched cache). */
export async function loadWebhooks(exec: Executor): Promise<WebhookRow[]> {
  return exec.query<WebhookRow>(
    sql`SELECT w.${ident('id')}, c.${ident('content_type')}, w.${ident('type_create')}, w.${ident('type_update')}, w.${ident('type_delete')}
        FROM ${ident('extras_webhook')} w JOIN ${ident('extras_webhook_content_types')} c ON c.${ident('webhook_id')} = w.${ident('id')}
        WHERE w.${ident('enabled')} = ${true} ORDER BY w.${ident('name')}`,
  );
}

/**
 * The deliveries a batch of change records triggers: each enabled webhook listing the objects'
 * type and the action (of `webhooks`, see loadWebhooks), times each record (the reference's
 * enqueue_webhooks). No statement when no webhook matches, the snapshots' when some do.
 */
export async function webhookDeliveries(x: ExtensionContext, event: ChangeEvent, now: Date, webhooks: WebhookRow[]): Promise<WebhookDelivery[]> {
  const { records } = event;
  if (!records.length) return [];
  const { action, changed_object_type: type } = records[0];
  const hooks = webhooks.filter((w) => w.content_type === type && storedBoolean(w[FLAG[action]]));
  if (!hooks.length) return [];
  const snaps = await snapshots(x, event);
  const timestamp = pythonTimestamp(now);
  const out: WebhookDelivery[] = [];
  for (const r of records) {
    const context: WebhookContext = {
      event: EVENT[action],
      timestamp,
      model: x.def.model,
      username: r.user_name,
      request_id: r.request_id,
      data: r.object_data_v2 ?? r.object_data,
      snapshots: snaps.get(r.id)!,
    };
    for (const h of hooks) out.push({ webhookId: String(h.id), context });
  }
  return out;
}
