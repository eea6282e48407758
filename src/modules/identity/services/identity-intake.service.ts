import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import type { RequestContext } from '../../../core/context';
import { ConflictError, HttpResult, NotFoundError, PermissionDeniedError, ValidationError } from '../../../core/resource/errors';
import { scopeCondition } from '../../../core/resource/query/scope';
import { orderBy } from '../../../core/resource/query/sort';
import { Representer } from '../../../core/resource/serialize/representer';
import { modelClassName } from '../../../core/resource/resource.service';
import type { Executor, Row } from '../../../database/db';
import { and, ident, join, raw, sql } from '../../../database/sql';
import { USERNAME } from '../../users/resources/user.resource';
import { IdentityMessage, RoleCode, validateIdentityMessage } from '../message/identity-message.validator';
import { canonicalJson, messageHash } from '../message/message-hash';
import { externalIdentityRoleResource } from '../resources/external-identity-role.resource';
import { externalIdentityResource } from '../resources/external-identity.resource';
import { identitySourceResource } from '../resources/identity-source.resource';
import { iso, parseRoleSummary, RoleSummary, toDate } from '../status/role-summary';
import { IdentityAccessService } from './identity-access.service';
import { diff, FieldChanges, HistoryAction, HistoryChanges, IdentityHistoryService, isEmpty } from './identity-history.service';

type Obj = Record<string, unknown>;
type Actor = { id: string; username: string } | null;

const IDENTITY = externalIdentityResource.table;
const ROLE = externalIdentityRoleResource.table;
const KEYS = 'identity_externalidentity_key';
const DAY_MS = 24 * 3600 * 1000;
const WRITE_ATTEMPTS = 4;

/** Role columns that a message sets, in history order. */
const ROLE_FIELDS = ['affiliation', 'status', 'rank', 'valid_from', 'valid_through', 'title', 'organization', 'department', 'grace_until', 'missing_since'] as const;
/** Role members stored in their own columns; the rest of a role object is its `attributes` in history. */
const ROLE_MEMBERS = ['affiliation', 'roleIdentifier', 'status', 'rank', 'validFrom', 'validThrough', 'title', 'organization', 'department'];
const ROLE_COLUMNS = ['id', 'created', 'last_updated', 'identity_id', 'role_identifier', ...ROLE_FIELDS, 'status_since', 'data'];
const IDENTITY_FIELDS = ['name', 'email', 'status', 'user', 'primary_role'] as const;
/** How final a role code is: a role missing from a message takes status_on_delete only when that is more final. */
const FINALITY: Record<RoleCode, number> = { A: 0, GP: 1, S: 2, D: 3, D2: 3 };

interface RoleValues extends Row {
  id: string;
  role_identifier: string;
  affiliation: string;
  status: RoleCode;
  status_since: Date;
  grace_until: Date | null;
  rank: number | null;
  valid_from: Date | null;
  valid_through: Date | null;
  title: string;
  organization: string;
  department: string;
  missing_since: Date | null;
  data: Obj;
}

export interface IntakeResult {
  created: boolean;
  body: Obj;
}

/**
 * The intake endpoint's work: validate a message, store it, create or update the identity and
 * its roles, link or create the user, apply access, and record what changed; all in one
 * transaction. A message identical to the stored one (same canonical JSON) changes nothing.
 */
@Injectable()
export class IdentityIntakeService {
  private readonly logger = new Logger('IdentityIntake');

  constructor(
    private readonly access: IdentityAccessService,
    private readonly history: IdentityHistoryService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** 413 before anything is parsed when the message is larger than IDENTITY_MAX_MESSAGE_BYTES. */
  checkSize(raw: Buffer | undefined): void {
    const limit = this.settings.IDENTITY_MAX_MESSAGE_BYTES;
    if (raw && raw.length > limit) throw new HttpResult(413, { detail: `An identity message may be at most ${limit} bytes; this one has ${raw.length}.` });
  }

  async get(ctx: RequestContext, slug: string, sorId: string, depth: number): Promise<Obj> {
    // An unknown source answers like an unknown identity: a reader learns no source slugs.
    const source = await this.source(ctx.db, slug).catch((e: unknown) => {
      throw e instanceof NotFoundError ? this.notFound() : e;
    });
    const scope = await scopeCondition(ctx, ctx.db, externalIdentityResource, 'view', 't');
    const [row] = await ctx.db.query(
      sql`SELECT t.* FROM ${ident(IDENTITY)} t WHERE ${and([sql`t.${ident('source_id')} = ${source.id}`, sql`t.${ident('sor_id')} = ${sorId}`, scope])}`,
    );
    if (!row) throw this.notFound();
    return this.represent(ctx, ctx.db, row, depth);
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
      const source = await this.writableSource(tx, slug);
      const existing = await this.lockIdentity(tx, String(source.id), sorId);
      if (!existing) throw this.notFound();
      await this.requireScope(ctx, tx, String(existing.id));
      if (existing.status === 'D') return;
      const now = ctx.now();
      const roles = await this.roles(tx, String(existing.id));
      const changes: HistoryChanges = { identity: { status: { old: 'A', new: 'D' } } };
      const updated = roles
        .filter((r) => r.status !== 'D' && r.status !== 'D2')
        .map((r) => ({ before: r, after: { ...r, status: 'D' as RoleCode, status_since: now, grace_until: null } }));
      for (const u of updated) (changes.roles ??= {})[u.before.role_identifier] = { action: 'changed', fields: diff(ROLE_FIELDS, u.before, u.after) };
      await this.updateRoles(tx, updated.map((u) => u.after), now);
      const byId = new Map(updated.map((u) => [u.after.id, u.after]));
      const all = roles.map((r) => byId.get(r.id) ?? r);
      await tx.execute(
        sql`UPDATE ${ident(IDENTITY)} SET ${ident('status')} = ${'D'}, ${ident('role_summary')} = ${tx.dialect.toDb(summaries(all, parseRoleSummary(existing.role_summary)), 'json')},
            ${ident('last_updated')} = ${now} WHERE ${ident('id')} = ${existing.id}`,
      );
      await this.applyAndRecord(ctx, tx, existing, 'delete', changes, null, now);
    });
  }

  /**
   * Applies time-driven changes that came due (a validity window or grace period passed) to
   * the user's access and records them; run at authentication and on identical re-sends.
   * Answers as a user status provider: false when the identities deny access, else the
   * user's stored is_active (null: no identity governs the user).
   */
  async applyTransitions(tx: Executor, target: { userId: string } | { identityId: string }, now: Date, actor: Actor = null): Promise<boolean | null> {
    const applied = await this.access.apply(tx, target, now);
    // The user's and groups' changes go with the (first) identity whose own status changed.
    const ids = [...applied.identities.keys()];
    const carrier = ids.find((id) => !isEmpty(applied.identities.get(id)!)) ?? ids[0];
    for (const [id, c] of applied.identities) {
      const changes: HistoryChanges = { ...c };
      if (id === carrier) {
        if (applied.user) changes.user = applied.user;
        if (applied.groups) changes.groups = applied.groups;
      }
      if (!isEmpty(changes)) await this.history.record(tx, id, 'transition', actor, changes, now);
    }
    if (!applied.identities.size) return null;
    return applied.active ? applied.userActive : false;
  }

  private async write(ctx: RequestContext, tx: Executor, slug: string, sorId: string, body: unknown): Promise<IntakeResult> {
    const result = validateIdentityMessage(body ?? {});
    // An unknown (404) or disabled (409) source answers before the message's errors (400).
    const source = await this.writableSource(tx, slug);
    if (!result.ok) throw new ValidationError(result.errors);
    const msg = result.message;
    const raw = body as Obj;
    const now = ctx.now();
    const hash = messageHash(raw);
    const existing = await this.lockIdentity(tx, String(source.id), sorId);
    if (existing) await this.requireScope(ctx, tx, String(existing.id));
    if (existing && existing.status === 'A' && existing.message_hash === hash) {
      if (dueAt(existing, now)) await this.applyTransitions(tx, existing.user_id ? { userId: String(existing.user_id) } : { identityId: String(existing.id) }, now, actorOf(ctx));
      return { created: false, body: await this.represent(ctx, tx, await this.reload(tx, String(existing.id)), 0) };
    }

    const username = existing?.user_id ? null : deriveUsername(msg, raw, source);
    const person = personOf(msg);
    const link = existing?.user_id ? null : username ? await this.linkUser(tx, username, person, now, ctx.principal.user?.id ?? null) : null;
    const userId = existing?.user_id ? String(existing.user_id) : (link?.id ?? null);
    const id = existing ? String(existing.id) : randomUUID();
    const changes: HistoryChanges = {};

    // Roles: matched by roleIdentifier; those missing from the message take status_on_delete.
    const oldRoles = existing ? await this.roles(tx, id) : [];
    const { roles, inserts, updates, roleChanges } = planRoles(oldRoles, msg, raw, source, now);
    if (Object.keys(roleChanges).length) changes.roles = roleChanges;
    const primary = primaryRole(msg, roles);
    const identityValues: Row = {
      name: person.name,
      email: person.email,
      status: 'A',
      user_id: userId,
      primary_role_id: primary?.id ?? null,
      message: raw,
      message_hash: hash,
      last_received: now,
      role_summary: summaries(roles, parseRoleSummary(existing?.role_summary)),
    };
    const shown = (v: Row | null, primaryRoleIdentifier: string | null) =>
      v && { ...v, user: v.user_id ? (v.user_id === userId && link ? link.username : String(v.user_id)) : null, primary_role: primaryRoleIdentifier };
    const oldPrimary = existing?.primary_role_id ? (oldRoles.find((r) => r.id === String(existing.primary_role_id))?.role_identifier ?? null) : null;
    const identityChanges: FieldChanges = {
      ...diff(IDENTITY_FIELDS, shown(existing, oldPrimary), shown(identityValues, primary?.role_identifier ?? null)!),
      ...messageChanges(existing ? parseJson(existing.message) : null, raw),
    };
    if (Object.keys(identityChanges).length) changes.identity = identityChanges;

    const d = tx.dialect;
    if (!existing) {
      const cols = ['id', 'created', 'last_updated', 'source_id', 'sor_id', 'name', 'email', 'user_id', 'status', 'primary_role_id', 'message', 'message_hash', 'last_received', 'role_summary', 'applied_status', 'applied_groups', 'next_transition'];
      const v: Row = { ...identityValues, id, created: now, last_updated: now, source_id: source.id, sor_id: sorId, primary_role_id: null, applied_status: '', applied_groups: [], next_transition: null };
      const json = ['message', 'role_summary', 'applied_groups'];
      await tx.execute(sql`INSERT INTO ${ident(IDENTITY)} (${join(cols.map((c) => ident(c)))}) VALUES (${join(cols.map((c) => sql`${json.includes(c) ? d.toDb(v[c], 'json') : v[c]}`))})`);
    }
    await this.insertRoles(tx, id, inserts, now);
    await this.updateRoles(tx, updates, now);
    // A new row only lacks its primary role (the roles did not exist yet); an existing one gets everything.
    const set = existing ? ['name', 'email', 'status', 'user_id', 'primary_role_id', 'message', 'message_hash', 'last_received', 'role_summary'] : primary ? ['primary_role_id'] : [];
    if (set.length) {
      const assignments = set.map((c) => sql`${ident(c)} = ${['message', 'role_summary'].includes(c) ? d.toDb(identityValues[c], 'json') : identityValues[c]}`);
      await tx.execute(sql`UPDATE ${ident(IDENTITY)} SET ${join([...assignments, sql`${ident('last_updated')} = ${now}`])} WHERE ${ident('id')} = ${id}`);
    }
    await this.replaceKeys(tx, id, msg, !existing);
    const userChanges = userId ? await this.updateUser(tx, userId, person, now) : {};
    if (link) changes.user = { action: link.created ? 'created' : 'linked', id: link.id, username: link.username, fields: link.created ? link.fields : userChanges };
    else if (Object.keys(userChanges).length) changes.user = { action: 'changed', id: userId!, username: '', fields: userChanges };
    const row = await this.reload(tx, id);
    await this.applyAndRecord(ctx, tx, row, existing ? 'update' : 'create', changes, link ? link.id : null, now);
    await this.requireScope(ctx, tx, id);
    return { created: !existing, body: await this.represent(ctx, tx, await this.reload(tx, id), 0) };
  }

  /** Applies access for the identity's user and records one history entry with everything that changed. */
  private async applyAndRecord(ctx: RequestContext, tx: Executor, row: Row, action: HistoryAction, changes: HistoryChanges, activated: string | null, now: Date) {
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
    if (changes.user && !changes.user.username) changes.user.username = applied.user?.username ?? (await this.username(tx, changes.user.id));
    if (applied.groups) changes.groups = applied.groups;
    await this.history.record(tx, id, action, actorOf(ctx), changes, now);
    // Other identities of the same user whose time-driven changes came due meanwhile.
    for (const [other, c] of applied.identities) if (other !== id && !isEmpty(c)) await this.history.record(tx, other, 'transition', null, c, now);
  }

  private async username(tx: Executor, userId: string): Promise<string> {
    const [u] = await tx.query(sql`SELECT ${ident('username')} FROM ${ident('users_user')} WHERE ${ident('id')} = ${userId}`);
    return u ? String(u.username) : '';
  }

  private notFound() {
    return new NotFoundError(`No ${modelClassName(externalIdentityResource)} matches the given query.`);
  }

  private async source(exec: Executor, slug: string, lock = false): Promise<Row> {
    const [source] = await exec.query(sql`SELECT * FROM ${ident(identitySourceResource.table)} WHERE ${ident('slug')} = ${slug}${raw(lock ? exec.dialect.forUpdate : '')}`);
    if (!source) throw new NotFoundError(`No ${modelClassName(identitySourceResource)} matches the given query.`);
    return source;
  }

  /**
   * The source, locked: one source's messages are written one at a time, so the first messages
   * for a new person cannot both create it, and (being the transaction's first read) every
   * later read sees what the previous message committed, on MySQL's snapshots too.
   */
  private async writableSource(tx: Executor, slug: string): Promise<Row> {
    const source = await this.source(tx, slug, true);
    const enabled = source.enabled === true || source.enabled === 1 || source.enabled === '1';
    if (!enabled) throw new ConflictError(`The identity source "${slug}" is disabled; it accepts no messages.`);
    return source;
  }

  private async lockIdentity(tx: Executor, sourceId: string, sorId: string): Promise<Row | null> {
    const [row] = await tx.query(sql`SELECT * FROM ${ident(IDENTITY)} WHERE ${ident('source_id')} = ${sourceId} AND ${ident('sor_id')} = ${sorId}${raw(tx.dialect.forUpdate)}`);
    return row ?? null;
  }

  private async reload(tx: Executor, id: string): Promise<Row> {
    const [row] = await tx.query(sql`SELECT * FROM ${ident(IDENTITY)} WHERE ${ident('id')} = ${id}`);
    return row;
  }

  /** The requester's object permissions on external identities must cover this one (else 403, nothing changed). */
  private async requireScope(ctx: RequestContext, tx: Executor, id: string): Promise<void> {
    const scope = await scopeCondition(ctx, tx, externalIdentityResource, 'change', 't');
    if (scope.nodes.length === 1 && scope.nodes[0].t === 'text' && scope.nodes[0].v === '1=1') return;
    const [{ n }] = await tx.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${ident(IDENTITY)} t WHERE ${and([sql`t.${ident('id')} = ${id}`, scope])}`);
    if (!Number(n)) throw new PermissionDeniedError();
  }

  private async roles(tx: Executor, identityId: string): Promise<RoleValues[]> {
    const rows = await tx.query(sql`SELECT * FROM ${ident(ROLE)} WHERE ${ident('identity_id')} = ${identityId}${raw(tx.dialect.forUpdate)}`);
    return rows.map((r) => ({
      ...r,
      id: String(r.id),
      status_since: toDate(r.status_since)!,
      grace_until: toDate(r.grace_until),
      valid_from: toDate(r.valid_from),
      valid_through: toDate(r.valid_through),
      missing_since: toDate(r.missing_since),
      rank: r.rank === null || r.rank === undefined ? null : Number(r.rank),
      data: parseJson(r.data),
    })) as RoleValues[];
  }

  private async insertRoles(tx: Executor, identityId: string, roles: RoleValues[], now: Date): Promise<void> {
    if (!roles.length) return;
    const d = tx.dialect;
    const rows = roles.map((r) => {
      const v: Row = { ...r, identity_id: identityId, created: now, last_updated: now };
      return sql`(${join(ROLE_COLUMNS.map((c) => sql`${c === 'data' ? d.toDb(v[c], 'json') : v[c]}`))})`;
    });
    await tx.execute(sql`INSERT INTO ${ident(ROLE)} (${join(ROLE_COLUMNS.map((c) => ident(c)))}) VALUES ${join(rows)}`);
  }

  /** One statement per changed role (a message carries a handful). */
  private async updateRoles(tx: Executor, roles: RoleValues[], now: Date): Promise<void> {
    const d = tx.dialect;
    for (const r of roles) {
      const cols = [...ROLE_FIELDS, 'status_since', 'data'];
      const assignments = cols.map((c) => sql`${ident(c)} = ${c === 'data' ? d.toDb(r[c], 'json') : r[c]}`);
      await tx.execute(sql`UPDATE ${ident(ROLE)} SET ${join([...assignments, sql`${ident('last_updated')} = ${now}`])} WHERE ${ident('id')} = ${r.id}`);
    }
  }

  /** Identifiers and (lower-cased) emails of the message, for the filters; rewritten when they change. */
  private async replaceKeys(tx: Executor, identityId: string, msg: IdentityMessage, fresh: boolean): Promise<void> {
    const keys = new Map<string, [string, string]>();
    for (const i of msg.sorAttributes.identifiers) keys.set(`identifier ${i.identifier}`, ['identifier', i.identifier]);
    for (const e of msg.sorAttributes.emailAddresses) keys.set(`email ${e.mail.toLowerCase()}`, ['email', e.mail.toLowerCase()]);
    if (!fresh) {
      const old = await tx.query<{ kind: string; value: string }>(sql`SELECT ${ident('kind')}, ${ident('value')} FROM ${ident(KEYS)} WHERE ${ident('identity_id')} = ${identityId}`);
      const same = old.length === keys.size && old.every((k) => keys.has(`${k.kind} ${k.value}`));
      if (same) return;
      await tx.execute(sql`DELETE FROM ${ident(KEYS)} WHERE ${ident('identity_id')} = ${identityId}`);
    }
    if (!keys.size) return;
    await tx.execute(
      sql`INSERT INTO ${ident(KEYS)} (${ident('identity_id')}, ${ident('kind')}, ${ident('value')}) VALUES ${join([...keys.values()].map(([k, v]) => sql`(${identityId}, ${k}, ${v})`))}`,
    );
  }

  /**
   * The user for a username: an existing user with that username, else the only one with the
   * identity's email, else a new user without a password (tokens only). Superusers are never
   * taken over by a source (409).
   */
  private async linkUser(tx: Executor, username: string, person: Person, now: Date, callerId: string | null): Promise<{ id: string; username: string; created: boolean; fields: FieldChanges }> {
    const email = person.email.toLowerCase();
    const candidates = await tx.query(
      sql`SELECT ${ident('id')}, ${ident('username')}, ${ident('is_superuser')} FROM ${ident('users_user')}
          WHERE ${ident('username')} = ${username}${email ? sql` OR LOWER(${ident('email')}) = ${email}` : sql``}`,
    );
    const byName = candidates.find((u) => u.username === username);
    if (!byName && candidates.length > 1) {
      throw new ConflictError(`Several users have the email address ${person.email}; link this identity by giving the user the username "${username}".`);
    }
    const found = byName ?? candidates[0];
    if (found) {
      if (found.is_superuser === true || found.is_superuser === 1 || found.is_superuser === '1') {
        throw new ConflictError(`The user "${found.username}" is a superuser; an identity source may not manage a superuser's access.`);
      }
      if (callerId && String(found.id) === callerId) {
        // The account that writes the messages must not hand its own access to a source.
        throw new ConflictError(`The user "${found.username}" is sending this message; an identity source may not manage the access of the account that writes to it.`);
      }
      return { id: String(found.id), username: String(found.username), created: false, fields: {} };
    }
    const id = randomUUID();
    const values: Row = {
      id,
      username,
      password: '',
      first_name: person.first,
      last_name: person.last,
      email: person.email,
      is_active: false,
      is_staff: false,
      is_superuser: false,
      date_joined: now,
      last_login: null,
      config_data: {},
      created: now,
      last_updated: now,
    };
    const d = tx.dialect;
    const typed = (c: string) => (c === 'config_data' ? d.toDb(values[c], 'json') : c.startsWith('is_') ? d.toDb(values[c], 'boolean') : values[c]);
    await tx.execute(sql`INSERT INTO ${ident('users_user')} (${join(Object.keys(values).map((c) => ident(c)))}) VALUES (${join(Object.keys(values).map((c) => sql`${typed(c)}`))})`);
    return { id, username, created: true, fields: diff(['username', 'first_name', 'last_name', 'email'], null, values) };
  }

  /** The identity owns its user's name and email (when the message has them). */
  private async updateUser(tx: Executor, userId: string, person: Person, now: Date): Promise<FieldChanges> {
    const [user] = await tx.query(sql`SELECT * FROM ${ident('users_user')} WHERE ${ident('id')} = ${userId}`);
    if (!user) return {};
    const want: Row = { ...user };
    if (person.first || person.last) Object.assign(want, { first_name: person.first, last_name: person.last });
    if (person.email) want.email = person.email;
    const changes = diff(['first_name', 'last_name', 'email'], user, want);
    const cols = Object.keys(changes);
    if (cols.length) {
      await tx.execute(sql`UPDATE ${ident('users_user')} SET ${join([...cols.map((c) => sql`${ident(c)} = ${want[c]}`), sql`${ident('last_updated')} = ${now}`])} WHERE ${ident('id')} = ${userId}`);
    }
    return changes;
  }

  /** The identity's representation (as at /external-identities/<id>/) with its roles, lowest rank first. */
  private async represent(ctx: RequestContext, exec: Executor, row: Row, depth: number): Promise<Obj> {
    const representer = new Representer(ctx, exec);
    const roleRows = await exec.query(sql`SELECT t.* FROM ${ident(ROLE)} t WHERE t.${ident('identity_id')} = ${row.id} ORDER BY ${await orderBy(ctx, exec, externalIdentityRoleResource, new Map(), 't')}`);
    // One after the other: inside a write, both share the transaction's single connection.
    const [obj] = await representer.represent(externalIdentityResource, [row], { depth });
    const roles = await representer.represent(externalIdentityRoleResource, roleRows, { depth: 0 });
    return { ...obj, roles };
  }
}


function checkSorId(sorId: string): void {
  if (sorId.length > 255) throw new ValidationError({ sor_id: ['Ensure this field has no more than 255 characters.'] });
  if (sorId.trim() === '') throw new ValidationError({ sor_id: ['This field may not be blank.'] });
  // One identity per id on every database: MariaDB ignores trailing spaces, PostgreSQL refuses NUL.
  if (sorId.trim() !== sorId) throw new ValidationError({ sor_id: ['Must not begin or end with white space.'] });
  if (/[\u0000-\u001f\u007f]/.test(sorId)) throw new ValidationError({ sor_id: ['Control characters are not allowed.'] });
}

const actorOf = (ctx: RequestContext): Actor => (ctx.principal.user ? { id: ctx.principal.user.id, username: ctx.principal.user.username } : null);

function dueAt(row: Row, now: Date): boolean {
  const next = toDate(row.next_transition);
  return !!next && next.getTime() <= now.getTime();
}

function parseJson(v: unknown): Obj {
  if (v && typeof v === 'object' && !Buffer.isBuffer(v)) return v as Obj;
  try {
    return JSON.parse(Buffer.isBuffer(v) ? v.toString('utf8') : String(v ?? '{}')) ?? {};
  } catch {
    return {};
  }
}

interface Person {
  name: string;
  first: string;
  last: string;
  email: string;
}

const truncate = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

function personOf(msg: IdentityMessage): Person {
  const n = msg.sorAttributes.names[0];
  const name = n ? [n.given, n.middle, n.family].filter((x) => x && x.trim()).join(' ') : '';
  return {
    name: truncate(name, 255),
    first: truncate(n?.given ?? '', 150),
    last: truncate(n?.family ?? '', 150),
    email: msg.sorAttributes.emailAddresses[0]?.mail ?? '',
  };
}

/**
 * The username: the first identifier of the source's `username_identifier_type`, else the
 * first email (lower-cased). A value the users app would refuse is a 400 at its path.
 */
function deriveUsername(msg: IdentityMessage, raw: Obj, source: Row): string | null {
  const attrs = msg.sorAttributes;
  let value: string | null = null;
  let path = '';
  const type = String(source.username_identifier_type ?? '');
  const i = type ? attrs.identifiers.findIndex((x) => x.type === type) : -1;
  if (i >= 0) {
    value = attrs.identifiers[i].identifier;
    path = `sorAttributes.identifiers[${i}].identifier`;
  } else if (attrs.emailAddresses.length) {
    value = attrs.emailAddresses[0].mail.toLowerCase();
    const first = ((raw.sorAttributes as Obj).emailAddresses as Obj[])[0];
    path = `sorAttributes.emailAddresses[0].${'mail' in first ? 'mail' : 'address'}`;
  }
  if (value === null) return null;
  if (value.length > 150 || !USERNAME.test(value)) {
    throw new ValidationError({ [path]: [`"${value}" cannot be a username: at most 150 letters, digits and @/./+/-/_ characters.`] });
  }
  return value;
}

/** Roles after this message: the message's roles, plus stored ones it no longer lists (status_on_delete). */
function planRoles(old: RoleValues[], msg: IdentityMessage, raw: Obj, source: Row, now: Date) {
  const byIdentifier = new Map(old.map((r) => [r.role_identifier, r]));
  const graceDays = Number(source.grace_period_days ?? 0);
  const graceEnd = () => new Date(now.getTime() + graceDays * DAY_MS);
  const keepOrStart = (before: RoleValues | undefined, status: RoleCode) => ({
    status_since: before && before.status === status ? before.status_since : now,
    grace_until: status !== 'GP' ? null : before && before.status === 'GP' && before.grace_until ? before.grace_until : graceEnd(),
  });
  const rawRoles = ((raw.sorAttributes as Obj).roles as Obj[] | undefined) ?? [];
  const roles: RoleValues[] = [];
  const inserts: RoleValues[] = [];
  const updates: RoleValues[] = [];
  const roleChanges: NonNullable<HistoryChanges['roles']> = {};
  msg.sorAttributes.roles.forEach((r, i) => {
    const before = byIdentifier.get(r.roleIdentifier);
    const after: RoleValues = {
      id: before?.id ?? randomUUID(),
      role_identifier: r.roleIdentifier,
      affiliation: r.affiliation,
      status: r.status,
      ...keepOrStart(before, r.status),
      rank: r.rank ?? null,
      valid_from: r.validFrom ?? null,
      valid_through: r.validThrough ?? null,
      title: r.title ?? '',
      organization: r.organization ?? '',
      department: r.department ?? '',
      missing_since: null,
      data: rawRoles[i],
    };
    roles.push(after);
    const fields = { ...diff(ROLE_FIELDS, before ?? null, after), ...attributeChanges(before?.data ?? null, after.data) };
    if (!before) {
      inserts.push(after);
      roleChanges[r.roleIdentifier] = { action: 'added', fields };
    } else if (Object.keys(fields).length || canonicalJson(before.data) !== canonicalJson(after.data)) {
      updates.push(after);
      if (Object.keys(fields).length) roleChanges[r.roleIdentifier] = { action: 'changed', fields };
    }
  });
  const listed = new Set(msg.sorAttributes.roles.map((r) => r.roleIdentifier));
  for (const before of old) {
    if (listed.has(before.role_identifier)) continue;
    if (before.missing_since) {
      roles.push(before);
      continue;
    }
    const onDelete = String(source.status_on_delete) as RoleCode;
    const status = FINALITY[onDelete] > FINALITY[before.status] ? onDelete : before.status;
    const after: RoleValues = { ...before, status, ...keepOrStart(before, status), missing_since: now };
    roles.push(after);
    updates.push(after);
    roleChanges[before.role_identifier] = { action: 'missing', fields: diff(ROLE_FIELDS, before, after) };
  }
  return { roles, inserts, updates, roleChanges };
}

/** Changes in a role's other members (addresses, sponsor, unknown members...), as one `attributes` change. */
function attributeChanges(before: Obj | null, after: Obj): FieldChanges {
  const rest = (o: Obj | null) => (o ? Object.fromEntries(Object.entries(o).filter(([k]) => !ROLE_MEMBERS.includes(k))) : null);
  const [b, a] = [rest(before), rest(after)];
  if (before && canonicalJson(b) === canonicalJson(a)) return {};
  if (!before && !Object.keys(a!).length) return {};
  return { attributes: { old: b, new: a } };
}

/** Changes in the message's members other than roles (names, emails, identifiers, addresses, ...), by JSON path. */
function messageChanges(before: Obj | null, after: Obj): FieldChanges {
  const out: FieldChanges = {};
  const compare = (prefix: string, b: Obj | null, a: Obj, skip: string[]) => {
    const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(a)])].filter((k) => !skip.includes(k)).sort();
    for (const k of keys) {
      const o = b ? (b[k] ?? null) : null;
      const n = a[k] ?? null;
      if (canonicalJson(o) !== canonicalJson(n)) out[`${prefix}${k}`] = { old: o, new: n };
    }
  };
  compare('', before, after, ['sorAttributes']);
  const sorOf = (o: Obj | null) => (o && o.sorAttributes && typeof o.sorAttributes === 'object' ? (o.sorAttributes as Obj) : null);
  compare('sorAttributes.', sorOf(before), sorOf(after) ?? {}, ['roles']);
  return out;
}

/** The role of the lowest rank in the message (unranked roles after ranked ones, in message order). */
function primaryRole(msg: IdentityMessage, roles: RoleValues[]): RoleValues | null {
  const ranked = msg.sorAttributes.roles
    .map((r, i) => ({ r, i }))
    .sort((x, y) => (x.r.rank ?? Infinity) - (y.r.rank ?? Infinity) || x.i - y.i);
  const first = ranked[0];
  return first ? (roles.find((r) => r.role_identifier === first.r.roleIdentifier) ?? null) : null;
}

/** role_summary of the roles after a write, carrying over what was last applied to the user. */
function summaries(roles: RoleValues[], before: RoleSummary[]): RoleSummary[] {
  const applied = new Map(before.map((s) => [s.role_identifier, s.applied]));
  return roles.map((r) => ({
    role_identifier: r.role_identifier,
    affiliation: r.affiliation,
    status: r.status,
    valid_from: iso(r.valid_from),
    valid_through: iso(r.valid_through),
    grace_until: iso(r.grace_until),
    applied: applied.get(r.role_identifier) ?? null,
  }));
}
