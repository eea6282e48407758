import { randomUUID } from 'node:crypto';
import { generateTokenKey, hashTokenKey } from '../../src/core/auth/passwords';
import { SessionService } from '../../src/core/auth/session.service';
import type { TestApp } from '../../src/core/testing/harness';
import { ident, join, sql } from '../../src/database/sql';

/**
 * Gives any user a token, as an administrator would: the API only lets users create their own
 * tokens, and users that come from identities have no password to ask for one.
 */
export async function tokenFor(t: TestApp, userId: string, writeEnabled = true, key = generateTokenKey()): Promise<string> {
  const now = new Date();
  const cols = ['id', 'user_id', 'key_hash', 'key_suffix', 'expires', 'write_enabled', 'description', 'created', 'last_updated'];
  await t.db.execute(
    sql`INSERT INTO ${ident('users_token')} (${join(cols.map((c) => ident(c)))})
        VALUES (${randomUUID()}, ${userId}, ${hashTokenKey(key)}, ${key.slice(-6)}, ${null}, ${writeEnabled}, ${'test'}, ${now}, ${now})`,
  );
  return key;
}

/** Starts a browser session for a user and returns the Cookie header that carries it. */
export async function sessionCookieFor(t: TestApp, userId: string): Promise<string> {
  const cookies = await t.app.get(SessionService).start(userId, false);
  return cookies.map((c) => c.split(';')[0]).join('; ');
}

/** Creates a plain user through the API and returns its id. */
export async function createUser(t: TestApp, username: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.post('/api/users/users/', { username, ...extra }).expect(201);
  return res.body.id as string;
}
