import { generateTokenKey } from '../../src/core/auth/passwords';
import { SessionService } from '../../src/core/auth/session.service';
import { issueToken, TestApp } from '../../src/core/testing/harness';

/**
 * Gives any user a token, as an administrator would: the API only lets users create their own
 * tokens, and users that come from identities have no password to ask for one.
 */
export const tokenFor = (t: TestApp, userId: string, writeEnabled = true, key = generateTokenKey()): Promise<string> => issueToken(t, userId, writeEnabled, key);

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
