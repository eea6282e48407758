import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../../../core/context';
import type { ListResult } from '../../../core/resource/resource.service';
import { pageLink, parsePage, Query } from '../../../core/resource/query/params';
import { ref } from '../../../core/resource/serialize/representer';
import { parseJsonObject } from '../../../core/resource/serialize/values';
import { formatDateTime } from '../../../core/resource/query/values';
import type { Executor } from '../../../database/db';
import { ident, join, sql } from '../../../database/sql';
import { userResource } from '../../users/resources/user.resource';

const TABLE = 'identity_externalidentityhistory';

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

/**
 * The append-only record of every change intake makes to an identity, its roles, the
 * resulting user and groups; read at /api/identity/external-identities/<id>/history/.
 */
@Injectable()
export class IdentityHistoryService {
  /** Appends an entry, numbered after the identity's last one (the caller holds the identity's row lock). */
  async record(tx: Executor, identityId: string, action: HistoryAction, actor: { id: string; username: string } | null, changes: HistoryChanges, now: Date): Promise<void> {
    const [{ seq }] = await tx.query<{ seq: number | null }>(sql`SELECT MAX(${ident('seq')}) AS seq FROM ${ident(TABLE)} WHERE ${ident('identity_id')} = ${identityId}`);
    const cols = ['id', 'identity_id', 'seq', 'time', 'action', 'actor_id', 'actor_name', 'changes'];
    await tx.execute(
      sql`INSERT INTO ${ident(TABLE)} (${join(cols.map((c) => ident(c)))}) VALUES (${randomUUID()}, ${identityId}, ${Number(seq ?? 0) + 1}, ${now}, ${action}, ${actor?.id ?? null}, ${actor?.username ?? ''}, ${tx.dialect.toDb(changes, 'json')})`,
    );
  }

  /** Newest first, paginated as every list is; one statement for the count, one for the page. */
  /** One page of the history, or (`all`, for CSV) every entry. */
  async list(ctx: RequestContext, identityId: string, q: Query, path: string, all = false): Promise<ListResult> {
    const { limit, offset } = all ? { limit: null, offset: 0 } : parsePage(q, ctx.settings);
    const page = limit === null ? sql`` : sql` LIMIT ${limit} OFFSET ${offset}`;
    const where = sql`${ident('identity_id')} = ${identityId}`;
    const [[{ n }], rows] = await Promise.all([
      ctx.db.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${ident(TABLE)} WHERE ${where}`),
      ctx.db.query(sql`SELECT * FROM ${ident(TABLE)} WHERE ${where} ORDER BY ${ident('seq')} DESC${page}`),
    ]);
    const count = Number(n);
    const base = ctx.url(path);
    const next = limit !== null && offset + limit < count ? pageLink(base, q, { limit: String(limit), offset: String(offset + limit) }) : null;
    const previous = limit !== null && offset > 0 ? pageLink(base, q, { limit: String(limit), offset: offset - limit > 0 ? String(offset - limit) : null }) : null;
    const results = rows.map((r) => ({
      id: String(r.id),
      time: formatDateTime(r.time),
      action: r.action,
      user: r.actor_id ? ref(ctx, userResource, String(r.actor_id)) : null,
      user_name: r.actor_name,
      changes: parseJsonObject(r.changes),
    }));
    return { count, next, previous, results };
  }
}
