import { hashTokenKey } from '../../src/core/auth/passwords';
import { UserStatusService } from '../../src/core/auth/user-status';
import type { AuthUser } from '../../src/core/context';
import { eachDatabase, TestApp } from '../../src/core/testing/harness';
import { ident, sql } from '../../src/database/sql';
import { createUser, sessionCookieFor, tokenFor } from '../support/users';

/** What the test provider answers for each user id (absent: no opinion). */
const decisions = new Map<string, boolean>();
const seen: { user: string; now: Date }[] = [];
const NOW = new Date('2031-05-06T07:08:09Z');
let now = NOW;

/** From when the providers are to be asked about a user (null: never), as a provider would keep it. */
const checkAfter = (t: TestApp, userId: string, at: Date | null) =>
  t.db.execute(sql`UPDATE ${ident('users_user')} SET ${ident('status_check_after')} = ${at} WHERE ${ident('id')} = ${userId}`);

eachDatabase(
  'user status providers',
  (t) => {
    let userId = '';
    let token = '';
    let cookie = '';

    beforeAll(async () => {
      t().app.get(UserStatusService).register({
        status: async (user: AuthUser, at: Date) => {
          seen.push({ user: user.id, now: at });
          return decisions.has(user.id) ? decisions.get(user.id)! : null;
        },
      });
      userId = await createUser(t(), 'status-user', { is_superuser: true });
      token = await tokenFor(t(), userId);
      cookie = await sessionCookieFor(t(), userId);
    });
    beforeEach(async () => {
      decisions.clear();
      seen.length = 0;
      now = NOW;
      await checkAfter(t(), userId, new Date('2031-01-01T00:00:00Z'));
    });

    it('lets the stored flag decide when no provider has an opinion', async () => {
      await t().get('/api/users/users/', token).expect(200);
      await t().http.get('/api/users/users/').set('Cookie', cookie).expect(200);
      expect(seen).toEqual([
        { user: userId, now: NOW },
        { user: userId, now: NOW },
      ]);
    });

    it('refuses tokens and sessions with 403 "User inactive" when a provider says inactive', async () => {
      decisions.set(userId, false);
      const r1 = await t().get('/api/users/users/', token).expect(403);
      expect(r1.body).toEqual({ detail: 'User inactive' });
      const r2 = await t().http.get('/api/users/users/').set('Cookie', cookie).expect(403);
      expect(r2.body).toEqual({ detail: 'User inactive' });
    });

    it('accepts a user whose provider has just made it active, whatever the stored flag said', async () => {
      await t().patch(`/api/users/users/${userId}/`, { is_active: false }).expect(200);
      const stored = await t().get('/api/users/users/', token).expect(403);
      expect(stored.body).toEqual({ detail: 'User inactive' });
      decisions.set(userId, true);
      await t().get('/api/users/users/', token).expect(200);
      await t().http.get('/api/users/users/').set('Cookie', cookie).expect(200);
      decisions.delete(userId);
      await t().patch(`/api/users/users/${userId}/`, { is_active: true }).expect(200);
    });

    it('asks no provider, and runs no statement for them, before the user\'s status_check_after or without one', async () => {
      decisions.set(userId, false);
      const cost = () => t().countStatements(() => t().get('/api/users/users/?limit=1', token).expect(200));
      await checkAfter(t(), userId, null);
      const without = await cost();
      await t().http.get('/api/users/users/').set('Cookie', cookie).expect(200);
      await checkAfter(t(), userId, new Date('2031-05-06T07:08:10Z'));
      expect(await cost()).toBe(without);
      await t().http.get('/api/users/users/').set('Cookie', cookie).expect(200);
      expect(seen).toEqual([]);
      // From that instant on, the providers decide (the admin's requests are never affected).
      now = new Date('2031-05-06T07:08:10Z');
      expect((await t().get('/api/users/users/', token).expect(403)).body).toEqual({ detail: 'User inactive' });
      expect((await t().http.get('/api/users/users/').set('Cookie', cookie).expect(403)).body).toEqual({ detail: 'User inactive' });
      await t().get('/api/users/users/').expect(200);
      expect(seen.map((s) => s.user)).toEqual([userId, userId]);
    });

    it('expires tokens by the clock', async () => {
      const key = await tokenFor(t(), userId);
      await t().db.execute(sql`UPDATE ${ident('users_token')} SET ${ident('expires')} = ${new Date('2031-05-06T07:08:10Z')} WHERE ${ident('key_hash')} = ${hashTokenKey(t().secret, key)}`);
      await t().get('/api/users/users/', key).expect(200);
      now = new Date('2031-05-06T07:08:10.001Z');
      expect((await t().get('/api/users/users/', key).expect(403)).body).toEqual({ detail: 'Token expired' });
    });
  },
  { clock: () => now },
);
