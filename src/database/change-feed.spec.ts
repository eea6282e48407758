import { ChangeFeed } from './change-feed';

describe('ChangeFeed', () => {
  it('takes a statement that names a watched table and may write it as a change, and nothing else', () => {
    const feed = new ChangeFeed('local');
    const w = feed.watch(['users_token']);
    expect(feed.written('SELECT * FROM "users_token" WHERE "key_hash" = $1')).toBeUndefined();
    expect(feed.written('  select 1 from "users_token" t join "users_user" u on u."id" = t."user_id"')).toBeUndefined();
    expect(feed.written('UPDATE "dcim_location" SET "name" = $1')).toBeUndefined();
    expect(feed.written('SELECT "last_updated", "created" FROM "users_token"')).toBeUndefined();
    // A locking read changes nothing.
    expect(feed.written('SELECT "id" FROM "users_token" WHERE "id" = $1 FOR UPDATE')).toBeUndefined();
    // A write names its table at its head: only that one is written.
    expect(feed.written('INSERT INTO "dcim_location" ("id") SELECT "id" FROM "users_token"')).toBeUndefined();
    for (const text of [
      'UPDATE "users_token" SET "write_enabled" = $1',
      'DELETE FROM `users_token` WHERE `id` = ?',
      'INSERT INTO "users_token" ("id") VALUES ($1)',
      'WITH gone AS (DELETE FROM "users_token" RETURNING 1) SELECT COUNT(*) FROM gone',
      'TRUNCATE "users_token"',
    ]) {
      expect(feed.written(text)).toEqual([w]);
      expect(feed.written(text)).toEqual([w]); // asked again: the kept answer
    }
  });

  it('answers for a text asked before a table was watched as for a new one', () => {
    const feed = new ChangeFeed('local');
    feed.watch(['users_token']);
    const text = 'UPDATE "users_user" SET "is_active" = $1';
    expect(feed.written(text)).toBeUndefined();
    const w = feed.watch(['users_user']);
    expect(feed.written(text)).toEqual([w]);
  });

  it("takes a delete from a table whose foreign keys cascade into a watched one as that table's change", () => {
    const feed = new ChangeFeed('local');
    const w = feed.watch(['extras_configcontext_locations'], ['dcim_location']);
    expect(feed.written('DELETE FROM "dcim_location" WHERE "id" = $1')).toEqual([w]);
    expect(feed.written('DELETE FROM `dcim_location` `t` WHERE `t`.`id` IN (?)')).toEqual([w]);
    expect(feed.written('WITH "gone" AS (DELETE FROM "dcim_location" RETURNING "id") SELECT 1')).toEqual([w]);
    // Writes that remove no row of the parent cascade nothing.
    expect(feed.written('UPDATE "dcim_location" SET "name" = $1 WHERE "id" = $2')).toBeUndefined();
    expect(feed.written('INSERT INTO "dcim_location" ("id") VALUES ($1)')).toBeUndefined();
    expect(feed.written('SELECT * FROM "dcim_location"')).toBeUndefined();
  });

  it('caches only what was read while nothing changed, never a miss, within its bound', async () => {
    const feed = new ChangeFeed('local');
    const cache = feed.cache<string, { v: number }>(['users_user'], { max: 2, ttlMs: 60_000 });
    let loads = 0;
    const load = (v: number | null) => async () => (loads++, v === null ? null : { v });

    expect(await cache.get('a', load(1))).toEqual({ v: 1 });
    expect(await cache.get('a', load(2))).toEqual({ v: 1 });
    expect(loads).toBe(1);

    // A change while 'b' is being read: the value read is returned but not kept.
    const bump = () => feed.written('UPDATE "users_user" SET "is_active" = $1')!.forEach((w) => w.changed());
    expect(await cache.get('b', async () => (bump(), { v: 3 }))).toEqual({ v: 3 });
    expect(await cache.get('b', load(4))).toEqual({ v: 4 });
    // ... and a change empties the cache.
    bump();
    expect(await cache.get('b', load(5))).toEqual({ v: 5 });

    expect(await cache.get('none', load(null))).toBeNull();
    expect(await cache.get('none', load(6))).toEqual({ v: 6 });

    // At most two entries: the oldest ('b') goes.
    await cache.get('c', load(7));
    loads = 0;
    expect(await cache.get('none', load(9))).toEqual({ v: 6 });
    expect(await cache.get('c', load(9))).toEqual({ v: 7 });
    expect(await cache.get('b', load(8))).toEqual({ v: 8 });
    expect(loads).toBe(1);
  });

  it('never serves a cache it cannot keep honest (MySQL)', async () => {
    const feed = new ChangeFeed('none');
    const cache = feed.cache<string, number>(['users_user'], { max: 10, ttlMs: 60_000 });
    let n = 0;
    expect([await cache.get('a', async () => ++n), await cache.get('a', async () => ++n)]).toEqual([1, 2]);
  });
});
