import { newId } from '../../../core/ids';
import type { Row } from '../../../database/db';
import type { IdentityMessage, RoleCode } from '../message/identity-message.validator';
import { canonicalJson } from '../message/message-hash';
import { iso, RoleSummary } from '../status/role-summary';
import { diff, FieldChanges, HistoryChanges } from '../services/identity-history.service';
import type { Obj } from './intake-message';

/**
 * A message's roles against the stored ones: which to insert and update, what changed for
 * history, the primary role, and the identity's role_summary.
 */

const DAY_MS = 24 * 3600 * 1000;

/** Role columns that a message sets, in history order. */
export const ROLE_FIELDS = ['affiliation', 'status', 'rank', 'valid_from', 'valid_through', 'title', 'organization', 'department', 'grace_until', 'missing_since'] as const;
/** Role members stored in their own columns; the rest of a role object is its `attributes` in history. */
const ROLE_MEMBERS = ['affiliation', 'roleIdentifier', 'status', 'rank', 'validFrom', 'validThrough', 'title', 'organization', 'department'];
export const ROLE_COLUMNS = ['id', 'created', 'last_updated', 'identity_id', 'role_identifier', ...ROLE_FIELDS, 'status_since', 'data'];
/** How final a role code is: a role missing from a message takes status_on_delete only when that is more final. */
const FINALITY: Record<RoleCode, number> = { A: 0, GP: 1, S: 2, D: 3, D2: 3 };

export interface RoleValues extends Row {
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

/** Roles after this message: the message's roles, plus stored ones it no longer lists (status_on_delete). */
export function planRoles(old: RoleValues[], msg: IdentityMessage, raw: Obj, source: Row, now: Date) {
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
      id: before?.id ?? newId(),
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

/** The role of the lowest rank in the message (unranked roles after ranked ones, in message order). */
export function primaryRole(msg: IdentityMessage, roles: RoleValues[]): RoleValues | null {
  const ranked = msg.sorAttributes.roles
    .map((r, i) => ({ r, i }))
    .sort((x, y) => (x.r.rank ?? Infinity) - (y.r.rank ?? Infinity) || x.i - y.i);
  const first = ranked[0];
  return first ? (roles.find((r) => r.role_identifier === first.r.roleIdentifier) ?? null) : null;
}

/** role_summary of the roles after a write, carrying over what was last applied to the user. */
export function summaries(roles: RoleValues[], before: RoleSummary[]): RoleSummary[] {
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
