import { createConnection } from 'mysql2/promise';
import { startApp, testDatabase, TestApp, TestDatabase } from '../../src/core/testing/harness';
import { POLL_TIMING } from '../../src/database/change-poll';
import { mysqlChangeTriggers } from '../../src/database/schema/names';
import { eventually, sleep } from '../support/outside';

const MIGRATION = 'ChangeCounts1796506446040';
const LIST = '/api/users/users/?limit=1';

/**
 * A MySQL/MariaDB user that may not create triggers (MySQL 8 with binary logging on needs SUPER
 * or log_bin_trust_function_creators; here a user without the TRIGGER privilege): the change
 * counts' migration leaves the triggers out, the server starts, writes to watched tables work,
 * and its caches stay off (a token is read on every request), so no change can go unheard.
 */
// Without a MySQL server in the run, jest.config.js leaves this suite out (saying so).
describe('a MySQL user that may not create triggers', () => {
  let db: TestDatabase;
  let t: TestApp;
  const user = `nk_${process.pid}_notrig`;
  const root = async <T>(fn: (c: Awaited<ReturnType<typeof createConnection>>) => Promise<T>): Promise<T> => {
    const c = await createConnection({ uri: db.url! });
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    db = await testDatabase('mysql');
    const name = decodeURIComponent(new URL(db.url!).pathname.slice(1));
    // The database as it was before the change counts, and a user with every right but TRIGGER.
    await root(async (c) => {
      const [triggers] = (await c.query(`SELECT TRIGGER_NAME AS n FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()`)) as unknown as [{ n: string }[]];
      expect(triggers.length).toBeGreaterThan(0);
      for (const { n } of triggers) await c.query(`DROP TRIGGER \`${n}\``);
      await c.query('DROP TABLE `netkeel_change_counts`');
      await c.query('DELETE FROM `migrations` WHERE `name` = ?', [MIGRATION]);
      await c.query(`DROP USER IF EXISTS '${user}'@'%'`);
      await c.query(`CREATE USER '${user}'@'%'`);
      await c.query(`GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, REFERENCES, LOCK TABLES, CREATE TEMPORARY TABLES ON \`${name}\`.* TO '${user}'@'%'`);
    });
    const url = new URL(db.url!);
    url.username = user;
    url.password = '';
    const restricted: TestDatabase = { ...db, url: url.toString(), target: { kind: 'mysql', url: url.toString() }, env: { DATABASE_URL: url.toString() } };
    t = await startApp('mysql', { database: restricted });
  });
  afterAll(async () => {
    await t?.close();
    await root((c) => c.query(`DROP USER IF EXISTS '${user}'@'%'`)).catch(() => undefined);
    await db?.drop();
  });

  it('applies the migration without the triggers, and reads a token on every request', async () => {
    const [applied, triggers] = await root(async (c) => [
      ((await c.query('SELECT `name` FROM `migrations` WHERE `name` = ?', [MIGRATION])) as unknown as [unknown[]])[0],
      ((await c.query(`SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()`)) as unknown as [unknown[]])[0],
    ]);
    expect([applied.length, triggers.length]).toEqual([1, 0]);
    const cost = () => t.countStatements(() => t.get(LIST).expect(200));
    await cost(); // a list's first request counts its total on its own
    const read = await cost();
    expect(read).toBeGreaterThan(0);
    for (let i = 0; i < 4; i++) {
      await sleep(POLL_TIMING.pollMs);
      expect(await cost()).toBe(read);
    }
    // Watched tables are written as anywhere else.
    await t.post('/api/users/users/', { username: 'written-without-triggers' }).expect(201);
    expect(await cost()).toBe(read);
  });

  it('adds the missing triggers once the user may create them, without a restart, and uses its caches from then on', async () => {
    const name = decodeURIComponent(new URL(db.url!).pathname.slice(1));
    await root((c) => c.query(`GRANT TRIGGER ON \`${name}\`.* TO '${user}'@'%'`));
    const checkMs = POLL_TIMING.triggersCheckMs;
    POLL_TIMING.triggersCheckMs = 200; // the check once a minute, sooner
    try {
      const cost = () => t.countStatements(() => t.get(LIST).expect(200));
      const read = await cost();
      expect(await eventually(async () => (await cost()) === read - 1, 10_000)).toBe(true);
    } finally {
      POLL_TIMING.triggersCheckMs = checkMs;
    }
    const found = await root(async (c) => ((await c.query(`SELECT TRIGGER_NAME AS n FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()`)) as unknown as [{ n: string }[]])[0]);
    const names = new Set(found.map((r) => r.n));
    const watched = t.db.feed.watchedTables;
    expect(watched).toContain('users_token');
    expect(watched.flatMap((w) => mysqlChangeTriggers(w).map((tr) => tr.name)).filter((n) => !names.has(n))).toEqual([]);
    // Another process's change is heard through them: a user made inactive elsewhere is refused.
    const uid = (await t.get('/api/users/users/?username=admin').expect(200)).body.results[0].id;
    await root((c) => c.query('UPDATE `users_user` SET `is_active` = 0 WHERE `id` = ?', [uid]));
    expect(await eventually(async () => (await t.get(LIST)).status === 403)).toBe(true);
  });
});
