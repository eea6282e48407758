import type { Executor } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import type { ChangeRecord } from '../change-log/listeners';
import { pythonTimestamp, type WebhookContext } from './deliver';
import { storedBoolean } from '../../../core/resource/serialize/values';

type Obj = Record<string, unknown>;

/** One request to send: a webhook and the change it reports. */
export interface WebhookDelivery {
  webhookId: string;
  context: WebhookContext;
}

const FLAG = { create: 'type_create', update: 'type_update', delete: 'type_delete' } as const;
const EVENT = { create: 'created', update: 'updated', delete: 'deleted' } as const;

const json = (v: unknown): Obj | null => (typeof v === 'string' ? (JSON.parse(v) as Obj) : ((v as Obj | null) ?? null));

/** The reference's shallow diff: keys of `after` whose values differ from `before`'s (last_updated ignored). */
function shallowDiff(before: Obj, after: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(after)) if (k !== 'last_updated' && JSON.stringify(before[k]) !== JSON.stringify(v)) out[k] = v;
  return out;
}

/**
 * The objects' data before and after each change (the reference's ObjectChange.get_snapshots):
 * before is the previous change record's data (for a delete without one, the deleted data),
 * after is the record's own (none on delete); `differences` is a shallow diff. One statement for
 * the batch: the latest earlier record of each object.
 */
export async function snapshots(exec: Executor, records: ChangeRecord[]): Promise<Map<string, WebhookContext['snapshots']>> {
  const out = new Map<string, WebhookContext['snapshots']>();
  const needPrior = records.filter((r) => r.action !== 'create');
  const prior = new Map<string, Obj | null>();
  if (needPrior.length) {
    const t = ident('extras_objectchange');
    const rows = await exec.query<{ changed_object_id: string; object_data: unknown; object_data_v2: unknown }>(
      sql`SELECT o.${ident('changed_object_id')}, o.${ident('object_data')}, o.${ident('object_data_v2')} FROM ${t} o
          WHERE o.${ident('changed_object_type')} = ${needPrior[0].changed_object_type}
            AND ${inList(sql`o.${ident('changed_object_id')}`, needPrior.map((r) => r.changed_object_id))}
            AND NOT ${inList(sql`o.${ident('id')}`, records.map((r) => r.id))}
            AND o.${ident('time')} = (SELECT MAX(p.${ident('time')}) FROM ${t} p WHERE p.${ident('changed_object_type')} = o.${ident('changed_object_type')}
              AND p.${ident('changed_object_id')} = o.${ident('changed_object_id')} AND NOT ${inList(sql`p.${ident('id')}`, records.map((r) => r.id))})`,
    );
    for (const r of rows) prior.set(String(r.changed_object_id), json(r.object_data_v2) ?? json(r.object_data));
  }
  for (const r of records) {
    const own = r.object_data_v2 ?? r.object_data;
    let pre: Obj | null = null;
    if (r.action !== 'create') pre = prior.get(r.changed_object_id) ?? (r.action === 'delete' ? own : null);
    const post = r.action === 'delete' ? null : own;
    let differences: WebhookContext['snapshots']['differences'];
    if (pre && post) {
      const added = shallowDiff(pre, post);
      differences = { removed: Object.fromEntries(Object.keys(added).map((k) => [k, pre![k] ?? null])), added };
    } else if (pre) differences = { added: null, removed: pre };
    else differences = { added: post, removed: null };
    out.set(r.id, { prechange: pre, postchange: post, differences });
  }
  return out;
}

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
 * enqueue_webhooks). No statement when no webhook matches, one (the snapshots) when some do.
 */
export async function webhookDeliveries(exec: Executor, model: string, records: ChangeRecord[], now: Date, webhooks: WebhookRow[]): Promise<WebhookDelivery[]> {
  if (!records.length) return [];
  const { action, changed_object_type: type } = records[0];
  const hooks = webhooks.filter((w) => w.content_type === type && storedBoolean(w[FLAG[action]]));
  if (!hooks.length) return [];
  const snaps = await snapshots(exec, records);
  const timestamp = pythonTimestamp(now);
  const out: WebhookDelivery[] = [];
  for (const r of records) {
    const context: WebhookContext = {
      event: EVENT[action],
      timestamp,
      model,
      username: r.user_name,
      request_id: r.request_id,
      data: r.object_data_v2 ?? r.object_data,
      snapshots: snaps.get(r.id)!,
    };
    for (const h of hooks) out.push({ webhookId: String(h.id), context });
  }
  return out;
}
