import type { RequestContext } from '../../../core/context';
import { ConflictError, NotFoundError } from '../../../core/resource/errors';
import { unscoped } from '../../../core/resource/query/rows';
import { visibleRows } from '../../../core/resource/query/scope';
import { orderBy } from '../../../core/resource/query/sort';
import { Representer } from '../../../core/resource/serialize/representer';
import { modelClassName } from '../../../core/resource/resource.service';
import type { Executor, Row } from '../../../database/db';
import { ident, join, raw, sql } from '../../../database/sql';
import type { IdentityMessage } from '../message/identity-message.validator';
import { externalIdentityRoleResource } from '../resources/external-identity-role.resource';
import { externalIdentityResource } from '../resources/external-identity.resource';
import { identitySourceResource } from '../resources/identity-source.resource';
import { toDate } from '../status/role-summary';
import { Obj, parseJson } from './intake-message';
import { ROLE_COLUMNS, ROLE_FIELDS, RoleValues } from './role-plan';

/**
 * The rows intake reads and writes for one identity: its source, the identity itself (locked),
 * its roles and lookup keys, and its representation. Plain functions of the transaction.
 */

/** The tables themselves: intake writes and locks them, for every identity of the message's source. */
const IDENTITY = unscoped(externalIdentityResource).table;
const ROLE = unscoped(externalIdentityRoleResource).table;
const KEYS = 'identity_externalidentity_key';
const JSON_COLUMNS = ['message', 'role_summary', 'applied_groups'];

export const identityNotFound = () => new NotFoundError(`No ${modelClassName(externalIdentityResource)} matches the given query.`);

export async function findSource(exec: Executor, slug: string, lock = false): Promise<Row> {
  const [source] = await exec.query(sql`SELECT * ${unscoped(identitySourceResource).from(sql`${ident('slug')} = ${slug}`)}${raw(lock ? exec.dialect.forUpdate : '')}`);
  if (!source) throw new NotFoundError(`No ${modelClassName(identitySourceResource)} matches the given query.`);
  return source;
}

/**
 * The source, locked: one source's messages are written one at a time, so the first messages
 * for a new person cannot both create it, and (being the transaction's first read) every
 * later read sees what the previous message committed, on MySQL's snapshots too.
 */
export async function writableSource(tx: Executor, slug: string): Promise<Row> {
  const source = await findSource(tx, slug, true);
  const enabled = source.enabled === true || source.enabled === 1 || source.enabled === '1';
  if (!enabled) throw new ConflictError(`The identity source "${slug}" is disabled; it accepts no messages.`);
  return source;
}

export async function lockIdentity(tx: Executor, sourceId: string, sorId: string): Promise<Row | null> {
  const [row] = await tx.query(sql`SELECT * FROM ${IDENTITY} WHERE ${ident('source_id')} = ${sourceId} AND ${ident('sor_id')} = ${sorId}${raw(tx.dialect.forUpdate)}`);
  return row ?? null;
}

export async function reloadIdentity(tx: Executor, id: string): Promise<Row> {
  const [row] = await tx.query(sql`SELECT * FROM ${IDENTITY} WHERE ${ident('id')} = ${id}`);
  return row;
}

/** Whether the requester's object permissions for `action` on external identities cover this one. */
export async function inScope(ctx: RequestContext, tx: Executor, id: string, action: 'view' | 'change'): Promise<boolean> {
  const allowed = await visibleRows(ctx, tx, externalIdentityResource, 't', action);
  if (!allowed.restricted) return true;
  const [{ n }] = await tx.query<{ n: number }>(sql`SELECT COUNT(*) AS n ${allowed.from(sql`t.${ident('id')} = ${id}`)}`);
  return Number(n) > 0;
}

export async function insertIdentity(tx: Executor, values: Row): Promise<void> {
  const cols = Object.keys(values);
  const d = tx.dialect;
  await tx.execute(sql`INSERT INTO ${IDENTITY} (${join(cols.map((c) => ident(c)))}) VALUES (${join(cols.map((c) => sql`${JSON_COLUMNS.includes(c) ? d.toDb(values[c], 'json') : values[c]}`))})`);
}

/** Sets the given columns of an identity, and its last_updated. */
export async function updateIdentity(tx: Executor, id: string, values: Row, now: Date): Promise<void> {
  const d = tx.dialect;
  const assignments = Object.keys(values).map((c) => sql`${ident(c)} = ${JSON_COLUMNS.includes(c) ? d.toDb(values[c], 'json') : values[c]}`);
  await tx.execute(sql`UPDATE ${IDENTITY} SET ${join([...assignments, sql`${ident('last_updated')} = ${now}`])} WHERE ${ident('id')} = ${id}`);
}

export async function lockRoles(tx: Executor, identityId: string): Promise<RoleValues[]> {
  const rows = await tx.query(sql`SELECT * FROM ${ROLE} WHERE ${ident('identity_id')} = ${identityId}${raw(tx.dialect.forUpdate)}`);
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

export async function insertRoles(tx: Executor, identityId: string, roles: RoleValues[], now: Date): Promise<void> {
  if (!roles.length) return;
  const d = tx.dialect;
  const rows = roles.map((r) => {
    const v: Row = { ...r, identity_id: identityId, created: now, last_updated: now };
    return sql`(${join(ROLE_COLUMNS.map((c) => sql`${c === 'data' ? d.toDb(v[c], 'json') : v[c]}`))})`;
  });
  await tx.execute(sql`INSERT INTO ${ROLE} (${join(ROLE_COLUMNS.map((c) => ident(c)))}) VALUES ${join(rows)}`);
}

/** One statement per changed role (a message carries a handful). */
export async function updateRoles(tx: Executor, roles: RoleValues[], now: Date): Promise<void> {
  const d = tx.dialect;
  for (const r of roles) {
    const cols = [...ROLE_FIELDS, 'status_since', 'data'];
    const assignments = cols.map((c) => sql`${ident(c)} = ${c === 'data' ? d.toDb(r[c], 'json') : r[c]}`);
    await tx.execute(sql`UPDATE ${ROLE} SET ${join([...assignments, sql`${ident('last_updated')} = ${now}`])} WHERE ${ident('id')} = ${r.id}`);
  }
}

/** Identifiers and (lower-cased) emails of the message, for the filters; rewritten when they change. */
export async function replaceKeys(tx: Executor, identityId: string, msg: IdentityMessage, fresh: boolean): Promise<void> {
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

export async function usernameOf(tx: Executor, userId: string): Promise<string> {
  const [u] = await tx.query(sql`SELECT ${ident('username')} FROM ${ident('users_user')} WHERE ${ident('id')} = ${userId}`);
  return u ? String(u.username) : '';
}

/** The identity's representation (as at /external-identities/<id>/) with its roles, lowest rank first. */
export async function represent(ctx: RequestContext, exec: Executor, row: Row, depth: number): Promise<Obj> {
  const representer = new Representer(ctx, exec);
  const roleRows = await exec.query(sql`SELECT t.* FROM ${ROLE} t WHERE t.${ident('identity_id')} = ${row.id} ORDER BY ${await orderBy(ctx, exec, externalIdentityRoleResource, new Map(), 't')}`);
  // One after the other: inside a write, both share the transaction's single connection.
  const [obj] = await representer.represent(externalIdentityResource, [row], { depth });
  const roles = await representer.represent(externalIdentityRoleResource, roleRows, { depth: 0 });
  return { ...obj, roles };
}
