import { Logger } from '@nestjs/common';
import { newId } from '../../../core/ids';
import { ConflictError } from '../../../core/resource/errors';
import type { Executor, Row } from '../../../database/db';
import { ident, inList, join, raw, sql } from '../../../database/sql';
import { diff, FieldChanges } from '../services/identity-history.service';
import type { Person } from './intake-message';

/**
 * The user an identity gives access to: found or created when the identity is linked, then
 * kept in step with the person. A source links only a user it may manage (a user linked to it
 * in identity_userlink: one it created, or one an administrator linked to it), or, when its
 * `link_existing` is on, one its `link_match` rule matches that nothing else claims.
 */

export interface LinkedUser {
  id: string;
  username: string;
  created: boolean;
  fields: FieldChanges;
}

const LINKS = 'identity_userlink';
const logger = new Logger('IdentityIntake');
const truthy = (v: unknown) => v === true || v === 1 || v === '1';

/** One answer for every user a source may not link: it names nobody, and says nothing of why. */
export const REFUSED =
  'This person matches an existing user that this source may not link, so nothing was changed. An administrator can link the user to the ' +
  'source (/api/identity/user-links/) or let the source link existing users (its link_existing and link_match).';
export const SENDER =
  'This person matches the account sending this message; an identity source may not manage the access of the account that writes to it.';

/** How a source's `link_match` compares a user with the person (the username derived from the message, its first email). */
const RULES: Record<string, (u: Row, username: string, email: string) => boolean> = {
  username: (u, username) => u.username === username,
  email: (u, _, email) => email !== '' && String(u.email).toLowerCase() === email,
  username_and_email: (u, username, email) => u.username === username && email !== '' && String(u.email).toLowerCase() === email,
  username_or_email: (u, username, email) => u.username === username || (email !== '' && String(u.email).toLowerCase() === email),
};

/**
 * The user for the person: among the users with the derived username or the person's email,
 * the one linked to this source; else, with `link_existing`, the one user `link_match`
 * matches, if no other source manages it and it is no superuser, staff user or identity
 * service account; else, when no user matches at all, a new user without a password (tokens
 * only), linked to the source as created by it. Anything else is a 409 that names nobody, and
 * so is a person who is the account sending the message. The users are locked, so two sources
 * cannot both take the same user, nor an administrator change it meanwhile.
 */
export async function linkUser(tx: Executor, source: Row, sorId: string, username: string, person: Person, now: Date, callerId: string | null): Promise<LinkedUser> {
  const email = person.email.toLowerCase();
  const candidates = await tx.query(
    sql`SELECT ${ident('id')}, ${ident('username')}, ${ident('email')}, ${ident('is_superuser')}, ${ident('is_staff')} FROM ${ident('users_user')}
        WHERE ${ident('username')} = ${username}${email ? sql` OR LOWER(${ident('email')}) = ${email}` : sql``} ORDER BY ${ident('id')}${raw(tx.dialect.forUpdate)}`,
  );
  if (!candidates.length) return createUser(tx, source, username, person, now);
  // The account that writes the messages must not hand its own access to a source.
  if (callerId && candidates.some((u) => String(u.id) === callerId)) throw new ConflictError(SENDER);
  const refuse = (reason: string): never => {
    logger.warn(`Source "${source.slug}" may not link identity "${sorId}" to user(s) ${candidates.map((u) => u.id).join(', ')}: ${reason}`);
    throw new ConflictError(REFUSED);
  };
  const links = await tx.query(
    sql`SELECT ${ident('user_id')}, ${ident('source_id')} FROM ${ident(LINKS)} WHERE ${inList(ident('user_id'), candidates.map((u) => String(u.id)))}
        ORDER BY ${ident('id')}${raw(tx.dialect.forUpdate)}`,
  );
  const linkedHere = (u: Row) => links.some((l) => String(l.user_id) === String(u.id) && String(l.source_id) === String(source.id));
  const owned = candidates.filter(linkedHere);
  let target: Row | undefined;
  if (owned.length) {
    target = owned.length === 1 ? owned[0] : owned.find((u) => u.username === username);
    if (!target) refuse('several users linked to the source match');
  } else {
    if (!truthy(source.link_existing)) refuse('not linked to the source, and link_existing is off');
    const rule = RULES[String(source.link_match)] ?? RULES.username_and_email;
    const fits = candidates.filter((u) => rule(u, username, email));
    if (fits.length !== 1) refuse(fits.length ? 'link_match matches several users' : 'link_match does not match');
    target = fits[0];
    if (truthy(target.is_staff)) refuse('a staff user');
    if (links.some((l) => String(l.user_id) === String(target!.id))) refuse('linked to another source');
    if (await writesIdentities(tx, String(target.id))) refuse('an identity service account');
  }
  if (truthy(target!.is_superuser)) refuse('a superuser');
  if (!owned.length) await insertLink(tx, String(source.id), String(target!.id), 'matched', now);
  return { id: String(target!.id), username: String(target!.username), created: false, fields: {} };
}

/**
 * Whether the user may write to the identity app (any permission beyond view on one of its
 * models, directly or through a group, enabled or not): the service accounts of sources and
 * whoever administers them.
 */
async function writesIdentities(tx: Executor, userId: string): Promise<boolean> {
  const rows = await tx.query(
    sql`SELECT p.${ident('actions')} AS actions FROM ${ident('users_objectpermission')} p
        JOIN ${ident('users_objectpermission_object_types')} ot ON ot.${ident('objectpermission_id')} = p.${ident('id')}
        WHERE ot.${ident('content_type')} LIKE ${'identity.%'} AND (
          p.${ident('id')} IN (SELECT ${ident('objectpermission_id')} FROM ${ident('users_objectpermission_users')} WHERE ${ident('user_id')} = ${userId})
          OR p.${ident('id')} IN (SELECT pg.${ident('objectpermission_id')} FROM ${ident('users_objectpermission_groups')} pg
               JOIN ${ident('users_user_groups')} ug ON ug.${ident('group_id')} = pg.${ident('group_id')} WHERE ug.${ident('user_id')} = ${userId}))`,
  );
  return rows.some((r) => {
    const actions = typeof r.actions === 'string' ? (JSON.parse(r.actions) as unknown) : r.actions;
    return !Array.isArray(actions) || actions.some((a) => a !== 'view');
  });
}

async function insertLink(tx: Executor, sourceId: string, userId: string, origin: 'created' | 'matched', now: Date): Promise<void> {
  const cols = ['id', 'created', 'last_updated', 'source_id', 'user_id', 'origin'];
  const values = [newId(), now, now, sourceId, userId, origin];
  await tx.execute(sql`INSERT INTO ${ident(LINKS)} (${join(cols.map((c) => ident(c)))}) VALUES (${join(values.map((v) => sql`${v}`))})`);
}

/** A new user without a password (tokens only), linked to the source that created it. */
async function createUser(tx: Executor, source: Row, username: string, person: Person, now: Date): Promise<LinkedUser> {
  const id = newId();
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
  await insertLink(tx, String(source.id), id, 'created', now);
  return { id, username, created: true, fields: diff(['username', 'first_name', 'last_name', 'email'], null, values) };
}

/** The identity owns its user's name and email (when the message has them). */
export async function updateUser(tx: Executor, userId: string, person: Person, now: Date): Promise<FieldChanges> {
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

