import { Inject, Injectable } from '@nestjs/common';
import { newId } from '../../../core/ids';
import { SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import { RequestContext } from '../../../core/context';
import { ContextFactory } from '../../../core/http/context.factory';
import { HttpResult, NotFoundError, PermissionDeniedError, ValidationError } from '../../../core/resource/errors';
import { visibleRows } from '../../../core/resource/query/scope';
import type { Executor, Row } from '../../../database/db';
import { ident, sql } from '../../../database/sql';
import { validateIdentityMessage } from '../message/identity-message.validator';
import { messageHash } from '../message/message-hash';
import { notifyChanges } from '../../../core/resource/write/observe';
import { externalIdentityResource } from '../resources/external-identity.resource';
import { externalIdentityRoleResource } from '../resources/external-identity-role.resource';
import { parseRoleSummary, toDate } from '../status/role-summary';
import { checkSorId, deriveUsername, messageChanges, Obj, parseJson, personOf } from '../intake/intake-message';
import {
  findSource,
  identityNotFound,
  inScope,
  insertIdentity,
  insertRoles,
  lockIdentity,
  lockRoles,
  reloadIdentity,
  replaceKeys,
  represent,
  updateIdentity,
  updateRoles,
  usernameOf,
  writableSource,
} from '../intake/intake-store';
import { planRoles, primaryRole, ROLE_FIELDS, summaries } from '../intake/role-plan';
import { linkUser, updateUser } from '../intake/user-link';
import type { RoleCode } from '../message/identity-message.validator';
import { IdentityAccessService } from './identity-access.service';
import { diff, FieldChanges, HistoryAction, HistoryChanges, HistoryEntry, IdentityHistoryService, isEmpty } from './identity-history.service';

const WRITE_ATTEMPTS = 4;
const IDENTITY_FIELDS = ['name', 'email', 'status', 'user', 'primary_role'] as const;

export interface IntakeResult {
  created: boolean;
  body: Obj;
}

/**
 * The intake endpoint's work: validate a message, store it, create or update the identity and
 * its roles, link or create the user, apply access, and record what changed; all in one
 * transaction. A message identical to the stored one (same canonical JSON) changes nothing.
 * The stages live in ../intake/: what the message says (intake-message), the roles
 * (role-plan), the rows (intake-store) and the user (user-link).
 */
@Injectable()
export class IdentityIntakeService {
  constructor(
    private readonly access: IdentityAccessService,
    private readonly history: IdentityHistoryService,
    private readonly contexts: ContextFactory,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** 413 before anything is parsed when the message is larger than IDENTITY_MAX_MESSAGE_BYTES. */
  checkSize(raw: Buffer | undefined): void {
    const limit = this.settings.IDENTITY_MAX_MESSAGE_BYTES;
    if (raw && raw.length > limit) throw new HttpResult(413, { detail: `An identity message may be at most ${limit} bytes; this one has ${raw.length}.` });
  }

  async get(ctx: RequestContext, slug: string, sorId: string, depth: number): Promise<Obj> {
    // An unknown source answers like an unknown identity: a reader learns no source slugs.
    const source = await findSource(ctx.db, slug).catch((e: unknown) => {
      throw e instanceof NotFoundError ? identityNotFound() : e;
    });
    const visible = await visibleRows(ctx, ctx.db, externalIdentityResource, 't');
    const [row] = await ctx.db.query(sql`SELECT t.* ${visible.from(sql`t.${ident('source_id')} = ${source.id}`, sql`t.${ident('sor_id')} = ${sorId}`)}`);
    if (!row) throw identityNotFound();
    return represent(ctx, ctx.db, row, depth);
  }

  async put(ctx: RequestContext, slug: string, sorId: string, body: unknown): Promise<IntakeResult> {
    checkSorId(sorId);
    // Two sources writing the same new user or group at the same moment: the loser hits a unique
    // key (or, on InnoDB, becomes a deadlock victim); each attempt starts after a winner committed.
    return ctx.db.retryingTransaction((tx) => this.write(ctx, tx, slug, sorId, body), WRITE_ATTEMPTS);
  }

  async delete(ctx: RequestContext, slug: string, sorId: string): Promise<void> {
    checkSorId(sorId);
    await ctx.db.transaction(async (tx) => {
      const source = await writableSource(tx, slug);
      const existing = await lockIdentity(tx, String(source.id), sorId);
      if (!existing || !(await inScope(ctx, tx, String(existing.id), 'change'))) throw identityNotFound();
      if (existing.status === 'D') return;
      const now = ctx.now();
      const roles = await lockRoles(tx, String(existing.id));
      const changes: HistoryChanges = { identity: { status: { old: 'A', new: 'D' } } };
      const updated = roles
        .filter((r) => r.status !== 'D' && r.status !== 'D2')
        .map((r) => ({ before: r, after: { ...r, status: 'D' as RoleCode, status_since: now, grace_until: null } }));
      for (const u of updated) (changes.roles ??= {})[u.before.role_identifier] = { action: 'changed', fields: diff(ROLE_FIELDS, u.before, u.after) };
      await updateRoles(tx, updated.map((u) => u.after), now);
      const byId = new Map(updated.map((u) => [u.after.id, u.after]));
      const all = roles.map((r) => byId.get(r.id) ?? r);
      await updateIdentity(tx, String(existing.id), { status: 'D', role_summary: summaries(all, parseRoleSummary(existing.role_summary)) }, now);
      // A deleted identity is kept, marked deleted: an update of it and of its roles, as the change log sees it.
      await this.history.record(ctx, tx, await this.applyAndCollect(tx, existing, 'delete', changes, null, now));
      await notifyChanges(ctx, tx, externalIdentityRoleResource, 'update', updated.map((u) => ({ id: u.before.id, before: u.before })));
    });
  }

  /**
   * Applies time-driven changes that came due (a validity window or grace period passed) to
   * the user's access and records them; run at authentication and on identical re-sends.
   * Answers as a user status provider: false when the identities deny access, else the
   * user's stored is_active (null: no identity governs the user).
   */
  async applyTransitions(ctx: RequestContext | null, tx: Executor, target: { userId: string } | { identityId: string }, now: Date): Promise<boolean | null> {
    const applied = await this.access.apply(tx, target, now);
    const entries: HistoryEntry[] = [];
    // The user's and groups' changes go with the (first) identity whose own status changed.
    const ids = [...applied.identities.keys()];
    const carrier = ids.find((id) => !isEmpty(applied.identities.get(id)!)) ?? ids[0];
    for (const [id, c] of applied.identities) {
      const changes: HistoryChanges = { ...c };
      if (id === carrier) {
        if (applied.user) changes.user = applied.user;
        if (applied.groups) changes.groups = applied.groups;
      }
      if (!isEmpty(changes)) entries.push({ id, action: 'transition', changes });
    }
    // At authentication no request writes: the system does, at the time the transition was applied.
    await this.history.record(ctx ?? this.systemAt(now), tx, entries);
    if (!applied.identities.size) return null;
    return applied.active ? applied.userActive : false;
  }

  /**
   * Stages: the source (locked) and the message; the identity (locked), which must be inside
   * the writer's scope; the roles, the identity row and its keys; for a new identity, the scope
   * again, now that its row exists; the user (linked or created); access and history; and the
   * scope once more, on the result.
   */
  private async write(ctx: RequestContext, tx: Executor, slug: string, sorId: string, body: unknown): Promise<IntakeResult> {
    const result = validateIdentityMessage(body ?? {});
    // An unknown (404) or disabled (409) source answers before the message's errors (400).
    const source = await writableSource(tx, slug);
    if (!result.ok) throw new ValidationError(result.errors);
    const msg = result.message;
    const raw = body as Obj;
    const now = ctx.now();
    const hash = messageHash(raw);
    const existing = await lockIdentity(tx, String(source.id), sorId);
    // An identity outside the writer's scope answers as a missing one: no probing another source's people.
    if (existing && !(await inScope(ctx, tx, String(existing.id), 'change'))) throw identityNotFound();
    if (existing && existing.status === 'A' && existing.message_hash === hash) {
      if (dueAt(existing, now)) await this.applyTransitions(ctx, tx, existing.user_id ? { userId: String(existing.user_id) } : { identityId: String(existing.id) }, now);
      return { created: false, body: await represent(ctx, tx, await reloadIdentity(tx, String(existing.id)), 0) };
    }

    const person = personOf(msg);
    const id = existing ? String(existing.id) : newId();
    const changes: HistoryChanges = {};

    // Roles: matched by roleIdentifier; those missing from the message take status_on_delete.
    const oldRoles = existing ? await lockRoles(tx, id) : [];
    const { roles, inserts, updates, roleChanges } = planRoles(oldRoles, msg, raw, source, now);
    if (Object.keys(roleChanges).length) changes.roles = roleChanges;
    const primary = primaryRole(msg, roles);
    const identityValues: Row = {
      name: person.name,
      email: person.email,
      status: 'A',
      user_id: existing?.user_id ?? null,
      primary_role_id: primary?.id ?? null,
      message: raw,
      message_hash: hash,
      last_received: now,
      role_summary: summaries(roles, parseRoleSummary(existing?.role_summary)),
    };
    if (!existing) {
      const fresh = { id, created: now, last_updated: now, source_id: source.id, sor_id: sorId, primary_role_id: null, applied_status: '', applied_groups: [], next_transition: null };
      await insertIdentity(tx, { ...identityValues, ...fresh });
    }
    await insertRoles(tx, id, inserts, now);
    await updateRoles(tx, updates, now);
    await replaceKeys(tx, id, msg, !existing);
    // A new identity is checked once its row, roles and keys exist, before anything about a user can answer.
    if (!existing && !(await inScope(ctx, tx, id, 'change'))) throw identityNotFound();

    const username = existing?.user_id ? null : deriveUsername(msg, raw, source);
    const link = username ? await linkUser(tx, source, sorId, username, person, now, ctx.principal.user?.id ?? null) : null;
    const userId = link ? link.id : existing?.user_id ? String(existing.user_id) : null;
    identityValues.user_id = userId;
    const shown = (v: Row | null, primaryRoleIdentifier: string | null) =>
      v && { ...v, user: v.user_id ? (v.user_id === userId && link ? link.username : String(v.user_id)) : null, primary_role: primaryRoleIdentifier };
    const oldPrimary = existing?.primary_role_id ? (oldRoles.find((r) => r.id === String(existing.primary_role_id))?.role_identifier ?? null) : null;
    const identityChanges: FieldChanges = {
      ...diff(IDENTITY_FIELDS, shown(existing, oldPrimary), shown(identityValues, primary?.role_identifier ?? null)!),
      ...messageChanges(existing ? parseJson(existing.message) : null, raw),
    };
    if (Object.keys(identityChanges).length) changes.identity = identityChanges;
    // A new row lacks its primary role (the roles did not exist yet) and its user; an existing one gets everything.
    if (existing) await updateIdentity(tx, id, identityValues, now);
    else if (primary || userId) await updateIdentity(tx, id, { primary_role_id: primary?.id ?? null, user_id: userId }, now);
    const userChanges = userId ? await updateUser(tx, userId, person, now) : {};
    if (link) changes.user = { action: link.created ? 'created' : 'linked', id: link.id, username: link.username, fields: link.created ? link.fields : userChanges };
    else if (Object.keys(userChanges).length) changes.user = { action: 'changed', id: userId!, username: '', fields: userChanges };
    const row = await reloadIdentity(tx, id);
    const entries = await this.applyAndCollect(tx, row, existing ? 'update' : 'create', changes, link ? link.id : null, now, existing);
    // The result must still be in scope: an update that leaves it is refused (403); a new identity reads as missing.
    if (!(await inScope(ctx, tx, id, 'change'))) throw existing ? new PermissionDeniedError() : identityNotFound();
    await this.history.record(ctx, tx, entries);
    await notifyChanges(ctx, tx, externalIdentityRoleResource, 'create', inserts.map((r) => ({ id: r.id, before: null })));
    await notifyChanges(ctx, tx, externalIdentityRoleResource, 'update', updates.map((r) => ({ id: r.id, before: oldRoles.find((o) => o.id === r.id) ?? null })));
    return { created: !existing, body: await represent(ctx, tx, await reloadIdentity(tx, id), 0) };
  }

  /**
   * Applies access for the identity's user; answers the history entries to record: one for the
   * identity with everything that changed, and the transitions of the user's other identities.
   */
  private async applyAndCollect(tx: Executor, row: Row, action: HistoryAction, changes: HistoryChanges, activated: string | null, now: Date, before: Row | null = row): Promise<HistoryEntry[]> {
    const id = String(row.id);
    const applied = await this.access.apply(tx, row.user_id ? { userId: String(row.user_id) } : { identityId: id }, now, activated !== null);
    const own = applied.identities.get(id) ?? {};
    if (own.identity) changes.identity = { ...(changes.identity ?? {}), ...own.identity };
    for (const [rid, c] of Object.entries(own.roles ?? {})) {
      const entry = (changes.roles ??= {})[rid];
      if (entry) entry.fields = { ...entry.fields, ...c.fields };
      else changes.roles[rid] = c;
    }
    if (applied.user) {
      if (changes.user) changes.user.fields = { ...changes.user.fields, ...applied.user.fields };
      else changes.user = applied.user;
      // A user created by this message had no earlier activity.
      if (changes.user.action === 'created' && changes.user.fields.is_active) changes.user.fields.is_active.old = null;
    }
    if (changes.user && !changes.user.username) changes.user.username = applied.user?.username ?? (await usernameOf(tx, changes.user.id));
    if (applied.groups) changes.groups = applied.groups;
    const entries: HistoryEntry[] = [{ id, action, changes, before }];
    // Other identities of the same user whose time-driven changes came due meanwhile.
    for (const [other, c] of applied.identities) if (other !== id && !isEmpty(c)) entries.push({ id: other, action: 'transition', changes: c });
    return entries;
  }

  /** The system's context, its clock stopped at `now` (records of transitions applied at authentication). */
  private systemAt(now: Date): RequestContext {
    const ctx = this.contexts.system();
    const at = new RequestContext(ctx.db, ctx.settings, ctx.registry, ctx.permissions, ctx.principal, ctx.apiVersion, ctx.baseUrl, () => now);
    at.changeContext = ctx.changeContext;
    return at;
  }
}

function dueAt(row: Row, now: Date): boolean {
  const next = toDate(row.next_transition);
  return !!next && next.getTime() <= now.getTime();
}
