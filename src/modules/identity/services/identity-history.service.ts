import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../../../core/context';
import { PermissionDeniedError } from '../../../core/resource/errors';
import type { ChangeBatch, ChangedObject } from '../../../core/resource/extension';
import type { ListResult } from '../../../core/resource/resource.service';
import { pageLink, parsePage, Query } from '../../../core/resource/query/params';
import { scopeConstraints, visibleRows } from '../../../core/resource/query/scope';
import { unscoped } from '../../../core/resource/query/rows';
import { ref } from '../../../core/resource/serialize/representer';
import { parseJsonObject } from '../../../core/resource/serialize/values';
import { formatDateTime } from '../../../core/resource/query/values';
import { notifyChanges } from '../../../core/resource/write/observe';
import type { Executor, Row } from '../../../database/db';
import { ident, inList, join, sql } from '../../../database/sql';
import { userResource } from '../../users/resources/user.resource';
import { externalIdentityResource } from '../resources/external-identity.resource';

/** `{old, new}` of one changed value. */
export interface Change {
  old: unknown;
  new: unknown;
}
export type FieldChanges = Record<string, Change>;

/** What one history entry says changed: the identity, its roles, the resulting user and groups. */
export interface HistoryChanges {
  identity?: FieldChanges;
  roles?: Record<string, { action: 'added' | 'changed' | 'missing'; fields: FieldChanges }>;
  user?: { action: 'created' | 'linked' | 'changed'; id: string; username: string; fields: FieldChanges };
  groups?: { added: string[]; removed: string[] };
}

export type HistoryAction = 'create' | 'update' | 'delete' | 'transition';

/** One entry to record: the identity, what happened to it, and its row before (for the change log's listeners). */
export interface HistoryEntry {
  id: string;
  action: HistoryAction;
  changes: HistoryChanges;
  before?: Row | null;
}

export const isEmpty = (c: HistoryChanges) => !Object.values(c).some((v) => v !== undefined && (typeof v !== 'object' || Object.keys(v).length));

/** Values as history shows them: dates as ISO text, everything else as JSON. */
export function historyValue(v: unknown): unknown {
  if (v instanceof Date) return formatDateTime(v);
  return v === undefined ? null : v;
}

/** Field-by-field differences of two records (only the keys given). */
export function diff(keys: readonly string[], before: Record<string, unknown> | null, after: Record<string, unknown>): FieldChanges {
  const out: FieldChanges = {};
  for (const k of keys) {
    const o = historyValue(before ? before[k] : null);
    const n = historyValue(after[k]);
    if (JSON.stringify(o) !== JSON.stringify(n)) out[k] = { old: o, new: n };
  }
  return out;
}

/** The change record's action for a history action: a deleted identity is kept (status D), a transition changes it. */
const RECORD_ACTION: Record<HistoryAction, ChangeBatch['action']> = { create: 'create', update: 'update', delete: 'update', transition: 'update' };

const TYPE = 'identity.externalidentity';

/**
 * An identity's history is a view of the change log: each entry is the change record of the
 * identity that intake (or a time-driven transition) wrote, carrying the entry (what changed on
 * the identity, its roles, its user and groups) as the record's account (`_detail`, numbered per
 * identity in `_seq`); read at /api/identity/external-identities/<id>/history/.
 */
@Injectable()
export class IdentityHistoryService {
  /**
   * Writes the entries as the identities' change records, in the caller's transaction (which
   * holds the identities' row locks): one statement numbers them, then one batch per action.
   */
  async record(ctx: RequestContext, tx: Executor, entries: HistoryEntry[]): Promise<void> {
    if (!entries.length) return;
    const changes = ctx.registry.get('extras.objectchange');
    const last = new Map<string, number>();
    if (changes) {
      // Numbering reads every record of these identities, visible to the writer or not.
      const rows = await tx.query<{ id: string; seq: number | null }>(
        sql`SELECT ${ident('changed_object_id')} AS id, MAX(${ident('_seq')}) AS seq ${unscoped(changes).from(
          sql`${ident('changed_object_type')} = ${TYPE}`,
          inList(ident('changed_object_id'), [...new Set(entries.map((e) => e.id))]),
        )} GROUP BY ${ident('changed_object_id')}`,
      );
      for (const r of rows) last.set(String(r.id), Number(r.seq ?? 0));
    }
    const batches = new Map<ChangeBatch['action'], ChangedObject[]>();
    for (const e of entries) {
      const seq = (last.get(e.id) ?? 0) + 1;
      last.set(e.id, seq);
      const batch = batches.get(RECORD_ACTION[e.action]) ?? [];
      batch.push({ id: e.id, before: e.before ?? null, detail: { seq, data: { action: e.action, changes: e.changes } } });
      batches.set(RECORD_ACTION[e.action], batch);
    }
    for (const [action, objects] of batches) await notifyChanges(ctx, tx, externalIdentityResource, action, objects);
  }

  /**
   * Newest first, paginated as every list is: one statement for the count, one for the page,
   * both over the change records the requester may view (extras.view_objectchange and the
   * identity's own view scope). A requester who may view no change record is refused (403).
   */
  async list(ctx: RequestContext, identityId: string, q: Query, path: string, all = false): Promise<ListResult> {
    const changes = ctx.registry.get('extras.objectchange');
    if (!changes || (await scopeConstraints(ctx, changes, 'view'))?.length === 0) throw new PermissionDeniedError();
    const { limit, offset } = all ? { limit: null, offset: 0 } : parsePage(q, ctx.settings);
    const page = limit === null ? sql`` : sql` LIMIT ${limit} OFFSET ${offset}`;
    const rows = await visibleRows(ctx, ctx.db, changes, 'c');
    const where = [sql`c.${ident('changed_object_type')} = ${TYPE}`, sql`c.${ident('changed_object_id')} = ${identityId}`, sql`c.${ident('_seq')} IS NOT NULL`];
    const cols = ['id', 'time', 'user_id', 'user_name', '_detail'].map((c) => sql`c.${ident(c)}`);
    const [[{ n }], found] = await Promise.all([
      ctx.db.query<{ n: number }>(sql`SELECT COUNT(*) AS n ${rows.from(...where)}`),
      ctx.db.query(sql`SELECT ${join(cols)} ${rows.from(...where)} ORDER BY c.${ident('_seq')} DESC${page}`),
    ]);
    const count = Number(n);
    const base = ctx.url(path);
    const next = limit !== null && offset + limit < count ? pageLink(base, q, { limit: String(limit), offset: String(offset + limit) }) : null;
    const previous = limit !== null && offset > 0 ? pageLink(base, q, { limit: String(limit), offset: offset - limit > 0 ? String(offset - limit) : null }) : null;
    const results = found.map((r) => {
      const detail = parseJsonObject(r._detail) as { action?: string; changes?: unknown };
      return {
        id: String(r.id),
        time: formatDateTime(r.time),
        action: detail.action ?? 'update',
        user: r.user_id ? ref(ctx, userResource, String(r.user_id)) : null,
        // The system (a transition at authentication) is the change log's 'Undefined'; history names nobody.
        user_name: !r.user_id && r.user_name === 'Undefined' ? '' : r.user_name,
        changes: detail.changes ?? {},
      };
    });
    return { count, next, previous, results };
  }
}
