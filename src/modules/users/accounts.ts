import { newId } from '../../core/ids';
import { hashPassword } from '../../core/auth/passwords';
import { ValueError } from '../../core/resource/query/values';
import { parseScalarInput } from '../../core/resource/serialize/input';
import type { ScalarField } from '../../core/resource/fields';
import type { Executor } from '../../database/db';
import { ident, join, sql } from '../../database/sql';
import { userResource } from './resources/user.resource';

/** The shortest password an operator may set from the command line (as SUPERUSER_PASSWORD). */
export const MIN_PASSWORD_LENGTH = 8;

/**
 * A user's field as the API would take it: the value, or the API's message for it (the
 * username's characters, the lengths, the e-mail's form).
 */
export function checkUserField(name: 'username' | 'email' | 'password', value: string): { value: string } | { problem: string } {
  try {
    if (name === 'password' && value.length < MIN_PASSWORD_LENGTH) return { problem: `This password is too short. It must contain at least ${MIN_PASSWORD_LENGTH} characters.` };
    return { value: String(parseScalarInput(userResource.fields[name] as ScalarField, value)) };
  } catch (e) {
    if (e instanceof ValueError) return { problem: e.message };
    throw e;
  }
}

export async function userExists(tx: Executor, username: string): Promise<boolean> {
  const [row] = await tx.query(sql`SELECT ${ident('id')} FROM ${ident('users_user')} WHERE ${ident('username')} = ${username}`);
  return !!row;
}

/** Writes an active superuser; `password` empty: none it can log in with. Returns its id. */
export async function insertSuperuser(tx: Executor, username: string, password: string, email: string): Promise<string> {
  const id = newId();
  const now = new Date();
  const hash = password ? await hashPassword(password) : '';
  const cols = ['id', 'username', 'password', 'first_name', 'last_name', 'email', 'is_active', 'is_staff', 'is_superuser', 'date_joined', 'config_data', 'created', 'last_updated'];
  await tx.execute(
    sql`INSERT INTO ${ident('users_user')} (${join(cols.map((c) => ident(c)))}) VALUES (${id}, ${username}, ${hash}, ${''}, ${''}, ${email}, ${true}, ${true}, ${true}, ${now}, ${'{}'}, ${now}, ${now})`,
  );
  return id;
}

/** Sets a user's password; false if there is no such user. */
export async function setPassword(tx: Executor, username: string, password: string): Promise<boolean> {
  const hash = await hashPassword(password);
  return (await tx.execute(sql`UPDATE ${ident('users_user')} SET ${ident('password')} = ${hash}, ${ident('last_updated')} = ${new Date()} WHERE ${ident('username')} = ${username}`)) > 0;
}
