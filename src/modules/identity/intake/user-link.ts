import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../../core/resource/errors';
import type { Executor, Row } from '../../../database/db';
import { ident, join, sql } from '../../../database/sql';
import { diff, FieldChanges } from '../services/identity-history.service';
import type { Person } from './intake-message';

/** The user an identity gives access to: found or created when the identity is linked, then kept in step with the person. */

export interface LinkedUser {
  id: string;
  username: string;
  created: boolean;
  fields: FieldChanges;
}

/**
 * The user for a username: an existing user with that username, else the only one with the
 * identity's email, else a new user without a password (tokens only). Superusers are never
 * taken over by a source (409).
 */
export async function linkUser(tx: Executor, username: string, person: Person, now: Date, callerId: string | null): Promise<LinkedUser> {
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

