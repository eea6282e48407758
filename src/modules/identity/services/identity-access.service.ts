import { Injectable } from '@nestjs/common';
import { newId } from '../../../core/ids';
import type { Executor, Row } from '../../../database/db';
import { ident, inList, join, raw, Sql, sql } from '../../../database/sql';
import { parseJsonObject } from '../../../core/resource/serialize/values';
import { grantsAccess, identityEffectiveStatus, IdentityEffective, nextTransition, roleEffectiveStatus, RoleEffective } from '../status/effective-status';
import { parseRoleSummary, RoleSummary, timingOf, toDate } from '../status/role-summary';
import { canonicalJson } from '../message/message-hash';
import { IdentityTiming, sameInstant, statusCheckAfter } from '../status/status-check';
import type { FieldChanges, HistoryChanges } from './identity-history.service';

const IDENTITY = 'identity_externalidentity';

/** What applying the identities' current state to their user changed. */
export interface AppliedAccess {
  /** Per identity: its effective status and its roles' effective statuses, where they changed. */
  identities: Map<string, Pick<HistoryChanges, 'identity' | 'roles'>>;
  user?: HistoryChanges['user'];
  groups?: HistoryChanges['groups'];
  /** Whether the identities grant access now (any of them is effectively active). */
  active: boolean;
  /** The user's stored is_active after applying. */
  userActive: boolean | null;
  /** The user's status_check_after after applying. */
  checkAfter: Date | null;
}

interface SourceMaps {
  affiliation: Record<string, string>;
  role: Record<string, string>;
}

/**
 * Applies the identities' effective state to what netkeel stores: the linked user's
 * `is_active` and the group memberships the sources manage (the groups their
 * `affiliation_groups` and `role_groups` name, and those they gave before and may have to take
 * back). Memberships in groups no source of the user manages are left alone. `is_active` is
 * written when the identities' activity changes (or the user was just linked), so an
 * administrator's deactivation holds until the roles next start or end. Run
 * inside the caller's transaction, after every intake write and whenever a role's validity
 * window or grace period passes (at the user's next authentication), so access follows the
 * roles without a scheduled job. It also keeps the user's `status_check_after`
 * (status/status-check.ts), so the auth guard asks the identities about the user only when
 * that can change the answer.
 */
@Injectable()
export class IdentityAccessService {
  /**
   * Re-applies the user's identities (or one identity without a user) at `now`. `activate`:
   * the user was just created or linked, so its `is_active` follows the identities now.
   */
  async apply(tx: Executor, target: { userId: string } | { identityId: string }, now: Date, activate = false): Promise<AppliedAccess> {
    const forUser = 'userId' in target;
    const where = forUser ? sql`${ident('user_id')} = ${target.userId}` : sql`${ident('id')} = ${target.identityId}`;
    const rows = await tx.query(sql`SELECT * FROM ${ident(IDENTITY)} WHERE ${where} ORDER BY ${ident('id')}${raw(tx.dialect.forUpdate)}`);
    const out: AppliedAccess = { identities: new Map(), active: false, userActive: null, checkAfter: null };
    const timings: IdentityTiming[] = [];
    const sources = forUser ? await this.sources(tx, rows) : new Map<string, SourceMaps>();
    const before = rows.some((r) => r.applied_status === 'active');
    // Groups the user's sources manage: those their maps name now, and those they gave before.
    const managed = new Set<string>();
    const wanted = new Set<string>();
    for (const row of rows) {
      const roles = parseRoleSummary(row.role_summary);
      const deleted = row.status === 'D';
      const status = identityEffectiveStatus(deleted, roles.map(timingOf), now);
      const states = roles.map((r) => roleEffectiveStatus(timingOf(r), now));
      if (status === 'active') out.active = true;
      out.identities.set(String(row.id), this.changes(row, roles, status, states));
      const maps = sources.get(String(row.source_id));
      const groups = new Set<string>();
      if (maps) {
        Object.values(maps.affiliation).forEach((g) => managed.add(g));
        Object.values(maps.role).forEach((g) => managed.add(g));
        roles.forEach((r, i) => {
          if (status !== 'active' || !grantsAccess(states[i])) return;
          for (const g of [maps.affiliation[r.affiliation], maps.role[r.role_identifier]]) if (g) groups.add(g);
        });
      }
      const gave = stringList(row.applied_groups);
      gave.forEach((g) => managed.add(g));
      groups.forEach((g) => wanted.add(g));
      const applied: RoleSummary[] = roles.map((r, i) => ({ ...r, applied: states[i] }));
      const appliedGroups = [...groups].sort();
      const next = deleted ? null : nextTransition(roles.map(timingOf), now);
      timings.push({ active: status === 'active', next });
      const unchanged =
        row.applied_status === status &&
        canonicalJson(applied) === canonicalJson(roles) &&
        canonicalJson(appliedGroups) === canonicalJson(gave) &&
        toDate(row.next_transition)?.getTime() === next?.getTime();
      if (!unchanged) {
        const d = tx.dialect;
        await tx.execute(
          sql`UPDATE ${ident(IDENTITY)} SET ${ident('applied_status')} = ${status}, ${ident('role_summary')} = ${d.toDb(applied, 'json')},
              ${ident('applied_groups')} = ${d.toDb(appliedGroups, 'json')}, ${ident('next_transition')} = ${next} WHERE ${ident('id')} = ${row.id}`,
        );
      }
    }
    if (!forUser) return out;
    out.groups = await this.applyGroups(tx, target.userId, managed, wanted, now);
    const [user] = await tx.query(
      sql`SELECT ${ident('id')}, ${ident('username')}, ${ident('is_active')}, ${ident('status_check_after')} FROM ${ident('users_user')} WHERE ${ident('id')} = ${target.userId}`,
    );
    if (!user) return out;
    const stored = user.is_active === true || user.is_active === 1 || user.is_active === '1';
    out.userActive = stored;
    out.checkAfter = statusCheckAfter(timings);
    const set: Sql[] = [];
    if ((activate || before !== out.active) && stored !== out.active) {
      set.push(sql`${ident('is_active')} = ${tx.dialect.toDb(out.active, 'boolean')}`, sql`${ident('last_updated')} = ${now}`);
      out.user = { action: 'changed', id: String(user.id), username: user.username, fields: { is_active: { old: stored, new: out.active } } };
      out.userActive = out.active;
    }
    // When the guard must ask again (not an API field, so last_updated stays). A user no
    // identity governs keeps whatever another provider may have asked for.
    if (rows.length && !sameInstant(toDate(user.status_check_after), out.checkAfter)) set.push(sql`${ident('status_check_after')} = ${out.checkAfter}`);
    if (set.length) await tx.execute(sql`UPDATE ${ident('users_user')} SET ${join(set)} WHERE ${ident('id')} = ${target.userId}`);
    return out;
  }

  /** The effective status changes of an identity and its roles since they were last applied. */
  private changes(row: Row, roles: RoleSummary[], status: IdentityEffective, states: RoleEffective[]): Pick<HistoryChanges, 'identity' | 'roles'> {
    const out: Pick<HistoryChanges, 'identity' | 'roles'> = {};
    const old = row.applied_status || null;
    if (old !== status) out.identity = { effective_status: { old, new: status } };
    roles.forEach((r, i) => {
      if (r.applied === states[i]) return;
      const fields: FieldChanges = { effective_status: { old: r.applied ?? null, new: states[i] } };
      (out.roles ??= {})[r.role_identifier] = { action: 'changed', fields };
    });
    return out;
  }

  private async sources(tx: Executor, rows: Row[]): Promise<Map<string, SourceMaps>> {
    const ids = [...new Set(rows.map((r) => String(r.source_id)))];
    const out = new Map<string, SourceMaps>();
    if (!ids.length) return out;
    const list = await tx.query(sql`SELECT ${ident('id')}, ${ident('affiliation_groups')}, ${ident('role_groups')} FROM ${ident('identity_identitysource')} WHERE ${inList(ident('id'), ids)}`);
    for (const s of list) {
      out.set(String(s.id), { affiliation: stringMap(s.affiliation_groups), role: stringMap(s.role_groups) });
    }
    return out;
  }

  /** Brings the user's memberships among the managed groups to `wanted`, creating missing groups. */
  private async applyGroups(tx: Executor, userId: string, managed: Set<string>, wanted: Set<string>, now: Date): Promise<HistoryChanges['groups']> {
    if (!managed.size) return undefined;
    const current = await tx.query<{ id: string; name: string }>(
      sql`SELECT g.${ident('id')} AS id, g.${ident('name')} AS name FROM ${ident('users_user_groups')} ug JOIN ${ident('users_group')} g ON g.${ident('id')} = ug.${ident('group_id')}
          WHERE ug.${ident('user_id')} = ${userId} AND ${inList(sql`g.${ident('name')}`, [...managed])}`,
    );
    const have = new Set(current.map((g) => g.name));
    const add = [...wanted].filter((g) => !have.has(g)).sort();
    const remove = current.filter((g) => !wanted.has(g.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
    if (remove.length) {
      await tx.execute(sql`DELETE FROM ${ident('users_user_groups')} WHERE ${ident('user_id')} = ${userId} AND ${inList(ident('group_id'), remove.map((g) => String(g.id)))}`);
    }
    if (add.length) {
      // A locking read: it sees groups committed since this transaction's snapshot (MySQL).
      const existing = await tx.query<{ id: string; name: string }>(
        sql`SELECT ${ident('id')}, ${ident('name')} FROM ${ident('users_group')} WHERE ${inList(ident('name'), add)}${raw(tx.dialect.forUpdate)}`,
      );
      const ids = new Map(existing.map((g) => [g.name, String(g.id)]));
      const missing = add.filter((g) => !ids.has(g));
      if (missing.length) {
        missing.forEach((g) => ids.set(g, newId()));
        await tx.execute(
          sql`INSERT INTO ${ident('users_group')} (${join(['id', 'name', 'created', 'last_updated'].map((c) => ident(c)))}) VALUES ${join(missing.map((g) => sql`(${ids.get(g)}, ${g}, ${now}, ${now})`))}`,
        );
      }
      await tx.execute(sql`INSERT INTO ${ident('users_user_groups')} (${ident('user_id')}, ${ident('group_id')}) VALUES ${join(add.map((g) => sql`(${userId}, ${ids.get(g)})`))}`);
    }
    if (!add.length && !remove.length) return undefined;
    return { added: add, removed: remove.map((g) => g.name) };
  }
}

function stringList(v: unknown): string[] {
  const list = typeof v === 'string' || Buffer.isBuffer(v) ? (parseJsonObject(v) as unknown) : v;
  return Array.isArray(list) ? list.filter((g): g is string => typeof g === 'string') : [];
}

function stringMap(v: unknown): Record<string, string> {
  const o = parseJsonObject(v);
  return Object.fromEntries(Object.entries(o).filter(([, g]) => typeof g === 'string' && g !== '')) as Record<string, string>;
}
