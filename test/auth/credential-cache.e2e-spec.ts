import { randomUUID } from 'node:crypto';
import { generateTokenKey, hashTokenKey } from '../../src/core/auth/passwords';
import { eachDatabase, TestApp } from '../../src/core/testing/harness';
import { POLL_TIMING } from '../../src/database/change-poll';
import { ident, sql } from '../../src/database/sql';
import { eventually, outside, sleep } from '../support/outside';
import { createUser, tokenFor } from '../support/users';

/**
 * CREDENTIAL_CACHE (on by default): a token's user and rights are remembered between requests,
 * never at the cost of a revocation. What this process changes applies to the next request; what
 * another process commits applies when PostgreSQL's notification arrives, or when MySQL's next
 * poll of the change counts sees it (a quarter of a second), and not at all through a cache whose
 * listener is gone or whose counts cannot be read.
 */
const LIST = '/api/users/users/?limit=1';
/** A list the plain users of these tests may not read. */
const FORBIDDEN = '/api/dcim/locations/';

eachDatabase('credential cache', (t) => {
  const cost = (key: string) => t().countStatements(() => t().get(LIST, key).expect(200));
  /** Uses a fresh token until its credential is served from the cache; returns the cost of a read from the table. */
  const warm = async (key: string) => {
    const read = await cost(key);
    expect(await eventually(async () => (await cost(key)) === read - 1)).toBe(true);
    return read;
  };
  const tokenId = async (key: string) =>
    String((await t().db.query(sql`SELECT ${ident('id')} AS id FROM ${ident('users_token')} WHERE ${ident('key_hash')} = ${hashTokenKey(t().secret, key)}`))[0].id);
  let n = 0;
  // A list's first request counts its total on its own, later ones inside the page statement.
  beforeAll(() => t().get(LIST).expect(200));
  const aUser = async (extra: Record<string, unknown> = {}) => createUser(t(), `cached-${++n}`, { is_superuser: true, ...extra });

  it('has the triggers that tell other processes of a change on every table a cache watches (PostgreSQL, MySQL)', async () => {
    if (t().kind === 'pglite') return;
    const watched = t().db.feed.watchedTables;
    expect(watched).toEqual(expect.arrayContaining(['users_token', 'users_user', 'users_objectpermission_users']));
    if (t().kind === 'postgres') {
      const rows = await t().db.query<{ t: string }>(sql`SELECT tgrelid::regclass::text AS t FROM pg_trigger WHERE tgname LIKE ${'%_notify_change'}`);
      expect(rows.map((r) => r.t).sort()).toEqual(expect.arrayContaining(watched.sort()));
      return;
    }
    const rows = await t().db.query<{ t: string; e: string }>(
      sql`SELECT EVENT_OBJECT_TABLE AS t, EVENT_MANIPULATION AS e FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME LIKE ${'%notify%'}`,
    );
    const found = new Set(rows.map((r) => `${r.t} ${r.e}`));
    expect(watched.flatMap((w) => ['INSERT', 'UPDATE', 'DELETE'].map((e) => `${w} ${e}`)).filter((x) => !found.has(x))).toEqual([]);
  });

  it("reads a token from the database once while nothing changes, this process's own writes of other tokens included", async () => {
    const key = await tokenFor(t(), await aUser());
    const read = await warm(key);
    // Written through this process: heard as it was made, and not again at MySQL's next poll.
    await tokenFor(t(), await aUser());
    expect(await cost(key)).toBe(read);
    for (let i = 0; i < 5; i++) {
      if (t().kind === 'mysql') await sleep(POLL_TIMING.pollMs); // across polls
      expect(await cost(key)).toBe(read - 1);
    }
  });

  it("does not hear this process's own changes a second time from PostgreSQL's notifications, and hears another process's", async () => {
    if (t().kind !== 'postgres') return; // MySQL: the loop above, across polls; PGlite has no other process
    const key = await tokenFor(t(), await aUser());
    const read = await warm(key);
    const notify = sql`SELECT pg_notify(${'netkeel_changes'}, ${'users_token'}) AS n`;
    // As a trigger notifies for a change made on one of this process's connections: the
    // statement names no watched table, so only the notification could empty the cache.
    await t().db.query(notify);
    await sleep(500); // the notification arrives in milliseconds
    expect(await cost(key)).toBe(read - 1);
    // The same notification from another process's connection empties it.
    await outside(t(), `SELECT pg_notify('netkeel_changes', 'users_token')`);
    expect(await eventually(async () => (await cost(key)) === read)).toBe(true);
  });

  it('refuses a token deleted through the API on the very next request', async () => {
    const uid = await aUser();
    const key = await tokenFor(t(), uid);
    const own = await tokenFor(t(), uid); // users manage their own tokens only
    await warm(key);
    await t().del(`/api/users/tokens/${await tokenId(key)}/`, undefined, own).expect(204);
    expect((await t().get(LIST, key).expect(403)).body).toEqual({ detail: 'Invalid token' });
  });

  it('applies a user made inactive, a token made read-only and an expiry through the API at once', async () => {
    const uid = await aUser();
    const key = await tokenFor(t(), uid);
    const own = await tokenFor(t(), uid);
    await warm(key);
    const id = await tokenId(key);

    await t().patch(`/api/users/tokens/${id}/`, { write_enabled: false }, own).expect(200);
    await t().post('/api/tenancy/tenant-groups/', { name: 'read-only attempt' }, key).expect(403);
    await t().patch(`/api/users/tokens/${id}/`, { write_enabled: true }, own).expect(200);
    await t().post('/api/tenancy/tenant-groups/', { name: 'read-write attempt' }, key).expect(201);

    await t().patch(`/api/users/tokens/${id}/`, { expires: '2001-01-01T00:00:00Z' }, own).expect(200);
    expect((await t().get(LIST, key).expect(403)).body).toEqual({ detail: 'Token expired' });
    await t().patch(`/api/users/tokens/${id}/`, { expires: null }, own).expect(200);
    await t().get(LIST, key).expect(200);

    await t().patch(`/api/users/users/${uid}/`, { is_superuser: false }).expect(200);
    await t().get(LIST, key).expect(403);
    await t().patch(`/api/users/users/${uid}/`, { is_superuser: true, is_active: false }).expect(200);
    expect((await t().get(LIST, key).expect(403)).body).toEqual({ detail: 'User inactive' });
  });

  it('accepts a token the moment it exists: an unknown key is never remembered', async () => {
    const uid = await aUser();
    const key = generateTokenKey();
    expect((await t().get(LIST, key).expect(403)).body).toEqual({ detail: 'Invalid token' });
    if (t().kind === 'pglite') {
      await tokenFor(t(), uid, true, key); // PGlite has no other process
    } else {
      const now = new Date();
      await outside(
        t(),
        `INSERT INTO "users_token" ("id", "user_id", "key_hash", "key_suffix", "expires", "write_enabled", "description", "created", "last_updated")
         VALUES ($1, $2, $3, $4, NULL, $5, 'outside', $6, $6)`,
        [randomUUID(), uid, hashTokenKey(t().secret, key), key.slice(-6), true, now],
      );
    }
    await t().get(LIST, key).expect(200);
  });

  it("applies a user's permissions, groups and grants changed through the API at once", async () => {
    const TENANTS = '/api/tenancy/tenants/?limit=1';
    const key = await t().userWith('perm-cached', []);
    const uid = (await t().get('/api/users/users/?username=perm-cached').expect(200)).body.results[0].id;
    const group = (await t().post('/api/users/groups/', { name: 'tenant viewers' }).expect(201)).body;
    const perm = (await t().post('/api/users/permissions/', { name: 'view tenants', object_types: ['tenancy.tenant'], actions: ['view'], groups: [group.id] }).expect(201)).body;
    const allowed = async () => (await t().get(TENANTS, key)).status === 200;
    // Served from the cache before each change, where there is one: a request the user may not
    // make then costs no statement at all (neither the token nor the permissions are read).
    const cached = async () => {
      expect(await eventually(async () => (await t().countStatements(() => t().get(FORBIDDEN, key).expect(403))) === 0)).toBe(true);
    };
    await cached();
    expect(await allowed()).toBe(false);
    await t().patch(`/api/users/users/${uid}/`, { groups: [group.id] }).expect(200);
    expect(await allowed()).toBe(true);
    await cached();
    await t().patch(`/api/users/permissions/${perm.id}/`, { enabled: false }).expect(200);
    expect(await allowed()).toBe(false);
    await t().patch(`/api/users/permissions/${perm.id}/`, { enabled: true }).expect(200);
    expect(await allowed()).toBe(true);
    await cached();
    await t().patch(`/api/users/permissions/${perm.id}/`, { object_types: ['tenancy.tenantgroup'] }).expect(200);
    expect(await allowed()).toBe(false);
    await t().patch(`/api/users/permissions/${perm.id}/`, { object_types: ['tenancy.tenant'] }).expect(200);
    expect(await allowed()).toBe(true);
    await cached();
    await t().del(`/api/users/groups/${group.id}/`).expect(204); // the membership and the grant go with it
    expect(await allowed()).toBe(false);
  });

  it('applies a revocation another process commits (PostgreSQL: when its notification arrives; MySQL: at the next poll)', async () => {
    if (t().kind === 'pglite') return; // the process holding the data directory is its only writer
    const key = await tokenFor(t(), await aUser());
    const other = await tokenFor(t(), await aUser());
    await warm(key);
    await warm(other);
    await outside(t(), `DELETE FROM "users_token" WHERE "key_hash" = $1`, [hashTokenKey(t().secret, key)]);
    const refused = async (k: string) => (await t().get(LIST, k)).status === 403;
    expect(await eventually(() => refused(key))).toBe(true);

    await outside(t(), `UPDATE "users_user" SET "is_active" = $1 WHERE "id" = (SELECT "user_id" FROM "users_token" WHERE "key_hash" = $2)`, [false, hashTokenKey(t().secret, other)]);
    expect(await eventually(() => refused(other))).toBe(true);

    // A grant withdrawn by another process.
    const viewer = await t().userWith('outside-viewer', [{ types: ['tenancy.tenant'], actions: ['view'] }]);
    const TENANTS = '/api/tenancy/tenants/?limit=1';
    expect(await eventually(async () => (await t().countStatements(() => t().get(FORBIDDEN, viewer).expect(403))) === 0)).toBe(true);
    await outside(t(), `DELETE FROM "users_objectpermission_users" WHERE "objectpermission_id" IN (SELECT "id" FROM "users_objectpermission" WHERE "name" = $1)`, ['outside-viewer-0']);
    const denied = async () => (await t().get(TENANTS, viewer)).status === 403;
    expect(await eventually(denied)).toBe(true);
  });

  it('folds the change counts of many connections into one row per table, and hears no change in that (MySQL)', async () => {
    if (t().kind !== 'mysql') return;
    // The rows 300 connections that wrote users_token would have left.
    const slots = Array.from({ length: 300 }, (_, i) => `('users_token', ${1_000_000_000 + i}, 2)`);
    await outside(t(), `INSERT INTO "netkeel_change_counts" ("table_name", "slot", "changes") VALUES ${slots.join(', ')}`);
    const counts = async () => (await outside(t(), `SELECT "slot" AS s, "changes" AS n FROM "netkeel_change_counts" WHERE "table_name" = $1`, ['users_token'])) as { s: number; n: number }[];
    const sum = async () => (await counts()).reduce((k, r) => k + Number(r.n), 0);
    const before = await sum();
    // Another process's rows: a poll hears them, and folds them.
    await t().get(LIST).expect(200);
    expect(await eventually(async () => (await counts()).length <= 3)).toBe(true);
    expect(await sum()).toBe(before);
    expect((await counts()).some((r) => Number(r.s) === 0)).toBe(true);
    // The rows of this process's connections that were folded joined the others: heard once, at
    // the poll after the fold.
    await sleep(2 * POLL_TIMING.pollMs);
    const key = await tokenFor(t(), await aUser()); // never read yet
    const read = await warm(key);
    for (let i = 0; i < 4; i++) {
      await sleep(POLL_TIMING.pollMs);
      expect(await cost(key)).toBe(read - 1);
    }
  });

  it('stops using the cache once the change counts cannot be read, and uses it again once they can (MySQL)', async () => {
    if (t().kind !== 'mysql') return;
    const key = await tokenFor(t(), await aUser());
    const read = await warm(key);
    await outside(t(), 'RENAME TABLE `netkeel_change_counts` TO `netkeel_change_counts_away`');
    try {
      // Within the trust window (2 s) of the last poll that came back, the cache is no longer used.
      expect(await eventually(async () => (await cost(key)) === read)).toBe(true);
      for (let i = 0; i < 3; i++) expect(await cost(key)).toBe(read);
      // No change goes uncounted: a write the triggers cannot count fails.
      await expect(outside(t(), 'UPDATE `users_token` SET `write_enabled` = $1 WHERE `key_hash` = $2', [false, hashTokenKey(t().secret, key)])).rejects.toThrow(/netkeel_change_counts/);
    } finally {
      await outside(t(), 'RENAME TABLE `netkeel_change_counts_away` TO `netkeel_change_counts`');
    }
    expect(await eventually(async () => (await cost(key)) === read - 1)).toBe(true);
    await outside(t(), 'DELETE FROM `users_token` WHERE `key_hash` = $1', [hashTokenKey(t().secret, key)]);
    expect(await eventually(async () => (await t().get(LIST, key)).status === 403)).toBe(true);
  });

  it('stops using the cache the moment its listener is gone, and uses it again once a new one hears (PostgreSQL)', async () => {
    if (t().kind !== 'postgres') return;
    const key = await tokenFor(t(), await aUser());
    const read = await warm(key);
    const ended = await outside(
      t(),
      `SELECT pg_terminate_backend("pid", 5000) AS ended FROM pg_stat_activity WHERE "application_name" = 'netkeel-change-feed' AND "datname" = current_database()`,
    );
    expect(ended).toEqual([{ ended: true }]);
    // No notification can tell this process now: the next request must read the table.
    await outside(t(), `UPDATE "users_token" SET "write_enabled" = $1 WHERE "key_hash" = $2`, [false, hashTokenKey(t().secret, key)]);
    await t().post('/api/tenancy/tenant-groups/', { name: 'after the listener died' }, key).expect(403);
    // A new listener (connected on demand) brings the cache back.
    expect(await eventually(async () => (await cost(key)) === read - 1)).toBe(true);
    await outside(t(), `DELETE FROM "users_token" WHERE "key_hash" = $1`, [hashTokenKey(t().secret, key)]);
    expect(await eventually(async () => (await t().get(LIST, key)).status === 403)).toBe(true);
  });
});
