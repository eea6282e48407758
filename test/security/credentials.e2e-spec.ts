import { createHash } from 'node:crypto';
import { hashTokenKey, secretFingerprint } from '../../src/core/auth/passwords';
import { ADMIN_TOKEN, eachDatabase } from '../../src/core/testing/harness';
import { ident, sql } from '../../src/database/sql';
import { UsersBootstrap } from '../../src/modules/users/users.bootstrap';
import { tokenFor } from '../support/users';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * Password and token guessing, and how token keys are kept (security issue): attempts are
 * counted before passwords are checked, so parallel guesses cannot outrun the limit; a stranger
 * cannot lock an account from one address; unknown token keys are throttled per address; keys
 * are stored keyed with the server secret.
 */
eachDatabase('credential guessing and token keys', (t) => {
  // Each test guesses from addresses of its own (the app trusts X-Forwarded-For from loopback).
  const tokenPost = (address: string, authorization: string) =>
    t().http.post('/api/users/tokens/').set('X-Forwarded-For', address).set('Authorization', authorization).send({});

  /** A user who may create and see their own tokens (and so answer 201 with the right password). */
  const tokenUser = async (username: string, password: string) => {
    const user = (await t().post('/api/users/users/', { username, password }).expect(201)).body;
    await t().post('/api/users/permissions/', { name: `${username}-tokens`, object_types: ['users.token'], actions: ['add', 'view'], users: [user.id] }).expect(201);
    return user.id as string;
  };

  it('checks at most the limit of 50 parallel guesses at one password', async () => {
    await tokenUser('victim', 'victim-password-1');
    const answers = await Promise.all(Array.from({ length: 50 }, () => tokenPost('10.0.1.1', basic('victim', 'wrong'))));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s !== 403 && s !== 429)).toEqual([]);
    // 403: the password was checked and wrong; 429: refused before any check.
    expect(statuses.filter((s) => s === 403).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(45);
    const refused = answers.find((r) => r.status === 429)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
    // That address waits, even with the right password; the user is not locked out elsewhere.
    await tokenPost('10.0.1.1', basic('victim', 'victim-password-1')).expect(429);
    await tokenPost('10.0.1.2', basic('victim', 'victim-password-1')).expect(201);
  });

  it('locks nobody out from a few addresses, and a right password gives its count back', async () => {
    await tokenUser('owner', 'owner-password-1');
    // Fifteen wrong guesses from three addresses: three times the per-address-and-user limit.
    for (const address of ['10.0.2.1', '10.0.2.2', '10.0.2.3']) {
      for (let i = 0; i < 5; i++) await tokenPost(address, basic('owner', 'wrong')).expect(403);
      await tokenPost(address, basic('owner', 'wrong')).expect(429);
    }
    await tokenPost('10.0.2.4', basic('owner', 'owner-password-1')).expect(201);
    // Four wrong, one right, four wrong again from one address: never refused.
    for (let i = 0; i < 4; i++) await tokenPost('10.0.2.5', basic('owner', 'wrong')).expect(403);
    await tokenPost('10.0.2.5', basic('owner', 'owner-password-1')).expect(201);
    for (let i = 0; i < 4; i++) await tokenPost('10.0.2.5', basic('owner', 'wrong')).expect(403);
  });

  it('throttles unknown token keys per address, before looking them up', async () => {
    const unknown = 'f'.repeat(40);
    for (let i = 0; i < 60; i++) {
      const r = await t().http.get('/api/dcim/locations/').set('X-Forwarded-For', '10.0.3.1').set('Authorization', `Token ${unknown}`);
      expect(r.status).toBe(403);
    }
    const next = await t().http.get('/api/dcim/locations/').set('X-Forwarded-For', '10.0.3.1').set('Authorization', `Token ${unknown}`).expect(429);
    expect(Number(next.headers['retry-after'])).toBeGreaterThan(0);
    // Refused before the lookup: a real key from that address waits too; elsewhere it works.
    await t().http.get('/api/dcim/locations/').set('X-Forwarded-For', '10.0.3.1').set('Authorization', `Token ${ADMIN_TOKEN}`).expect(429);
    await t().http.get('/api/dcim/locations/').set('X-Forwarded-For', '10.0.3.2').set('Authorization', `Token ${ADMIN_TOKEN}`).expect(200);
  });

  it('keeps keys as HMAC-SHA-256 under the server secret, never as a bare hash', async () => {
    const created = (await t().post('/api/users/tokens/', { description: 'hmac' }).expect(201)).body;
    const [row] = await t().db.query<{ key_hash: string }>(sql`SELECT ${ident('key_hash')} FROM ${ident('users_token')} WHERE ${ident('id')} = ${created.id}`);
    expect(row.key_hash).toBe(hashTokenKey(t().secret, created.key));
    expect(row.key_hash).not.toBe(createHash('sha256').update(created.key).digest('hex'));
    await t().get('/api/users/tokens/', created.key).expect(200);
  });

  it('accepts a supplied key only as 40 hexadecimal characters, and no token that has already expired', async () => {
    const bad = await t().post('/api/users/tokens/', { key: 'g'.repeat(40) }).expect(400);
    expect(bad.body).toEqual({ key: ['Enter a key of 40 hexadecimal characters (0-9, a-f).'] });
    expect((await t().post('/api/users/tokens/', { key: 'a'.repeat(39) }).expect(400)).body).toEqual({ key: ['Ensure this field has exactly 40 characters.'] });
    const expired = await t().post('/api/users/tokens/', { expires: '2001-01-01T00:00:00Z' }).expect(400);
    expect(expired.body).toEqual({ expires: ['The expiry time must be in the future.'] });
    const mine = (await t().get('/api/users/tokens/?limit=0').expect(200)).body.results;
    expect(mine.some((x: { expires: string | null }) => x.expires === '2001-01-01T00:00:00Z')).toBe(false);
    await t().post('/api/users/tokens/', { key: 'abcdef0123'.repeat(4), expires: '2099-01-01T00:00:00Z' }).expect(201);
  });

  it('re-keys tokens stored as plain SHA-256 on the first start with a secret, and refuses a start with another secret', async () => {
    const users = await t().get('/api/users/users/?username=victim').expect(200);
    const key = await tokenFor(t(), users.body.results[0].id);
    // The database as an earlier version left it: plain SHA-256, no fingerprint.
    const legacy = createHash('sha256').update(key).digest('hex');
    await t().db.execute(sql`UPDATE ${ident('users_token')} SET ${ident('key_hash')} = ${legacy} WHERE ${ident('key_hash')} = ${hashTokenKey(t().secret, key)}`);
    await t().db.execute(sql`DELETE FROM ${ident('users_secret_check')}`);
    const bootstrap = t().app.get(UsersBootstrap);
    await bootstrap.onApplicationBootstrap();
    await t().get('/api/users/tokens/', key).expect(200);
    await t().get('/api/dcim/locations/').expect(200);
    // Started again, the tokens are not re-keyed twice.
    await bootstrap.onApplicationBootstrap();
    await t().get('/api/users/tokens/', key).expect(200);
    await t().db.execute(sql`UPDATE ${ident('users_secret_check')} SET ${ident('fingerprint')} = ${secretFingerprint('another secret, another secret, !!')}`);
    await expect(bootstrap.onApplicationBootstrap()).rejects.toThrow(/SECRET_KEY is not the secret this database's API tokens were hashed with/);
    await t().db.execute(sql`UPDATE ${ident('users_secret_check')} SET ${ident('fingerprint')} = ${secretFingerprint(t().secret)}`);
  });
});

