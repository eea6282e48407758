import { ChangeFeed } from './change-feed';
import { ChangePoller, POLL_TIMING } from './change-poll';
import { mysqlChangeTriggers } from './schema/names';

/** A database as the poller sees it: the triggers present, and the counts per table (or a failure). */
function fakeDatabase(tables: string[]) {
  const db = {
    triggers: tables.flatMap((t) => mysqlChangeTriggers(t).map((tr) => tr.name)),
    counts: new Map<string, number>(),
    fail: false,
    statements: [] as string[],
    query: async (text: string) => {
      db.statements.push(text.includes('information_schema') ? 'triggers' : 'counts');
      if (db.fail) throw new Error("Table 'netkeel_change_counts' doesn't exist");
      if (text.includes('information_schema')) return db.triggers.map((n) => ({ n }));
      return [...db.counts].map(([t, n]) => ({ t, n: String(n) }));
    },
  };
  return db;
}

describe('ChangePoller (MySQL/MariaDB)', () => {
  const pollers: ChangePoller[] = [];
  afterAll(() => pollers.forEach((p) => p.close()));
  const poller = (db: ReturnType<typeof fakeDatabase>, tables: string[], changed: string[]) => {
    const p = new ChangePoller(db.query, () => tables, (t) => changed.push(t));
    pollers.push(p);
    return p;
  };

  it('trusts caches only after a poll came back, until trustMs after that poll started, and tells each table whose count moved', async () => {
    const db = fakeDatabase(['users_token', 'users_user']);
    const changed: string[] = [];
    const p = poller(db, ['users_token', 'users_user'], changed);
    let now = 1_000_000;
    expect(p.trusted(now)).toBe(false); // starts the first poll
    await p.poll(now); // (already in flight: nothing more)
    await new Promise((r) => setImmediate(r));
    expect(db.statements).toEqual(['triggers', 'counts']);
    expect(p.trusted(now + 1)).toBe(true);
    expect(changed).toEqual([]); // the first poll only sets the baseline

    db.counts.set('users_token', 3);
    now += POLL_TIMING.pollMs;
    await p.poll(now);
    expect(changed).toEqual(['users_token']);
    expect(db.statements).toEqual(['triggers', 'counts', 'counts']); // the triggers are checked once

    // Unchanged counts tell nothing; a count that moves, or a table's row that goes, does.
    now += POLL_TIMING.pollMs;
    await p.poll(now);
    expect(changed).toEqual(['users_token']);
    db.counts.set('users_user', 1);
    db.counts.delete('users_token');
    now += POLL_TIMING.pollMs;
    await p.poll(now);
    expect(changed.sort()).toEqual(['users_token', 'users_token', 'users_user']);

    // Polls that fail: trusted until trustMs after the last poll that came back started, not after.
    const lastGood = now;
    db.fail = true;
    now += POLL_TIMING.pollMs;
    await p.poll(now);
    expect(p.trusted(lastGood + POLL_TIMING.trustMs)).toBe(true);
    expect(p.trusted(lastGood + POLL_TIMING.trustMs + 1)).toBe(false); // (starts a poll, which fails)
    await new Promise((r) => setImmediate(r));
    // Back: what changed meanwhile is told, and the caches are trusted again.
    db.fail = false;
    db.counts.set('users_user', 2);
    changed.length = 0;
    now = lastGood + POLL_TIMING.trustMs + POLL_TIMING.pollMs;
    await p.poll(now);
    expect(changed).toEqual(['users_user']);
    expect(p.trusted(now + 1)).toBe(true);
  });

  it('never trusts a cache where a watched table lacks its triggers (a user that may not create them)', async () => {
    const db = fakeDatabase(['users_token']);
    const p = poller(db, ['users_token', 'users_user'], []);
    await p.poll(1_000_000);
    expect(p.trusted(1_000_001)).toBe(false);
    await p.poll(1_000_000 + POLL_TIMING.trustMs);
    expect(db.statements).toEqual(['triggers']); // nothing more is read
  });

  it("empties a feed's caches of the tables whose counts moved, and no others", async () => {
    const db = fakeDatabase(['users_token', 'extras_webhook']);
    const feed = new ChangeFeed('poll', undefined, db.query);
    try {
      const tokens = feed.cache<string, number>(['users_token'], { max: 10, ttlMs: 60_000 });
      const hooks = feed.cache<string, number>(['extras_webhook'], { max: 10, ttlMs: 60_000 });
      let n = 0;
      const load = async () => ++n;
      expect(await tokens.get('a', load)).toBe(1); // not yet trusted: read, not kept
      await new Promise((r) => setTimeout(r, 10)); // the poll it started comes back
      expect(await tokens.get('a', load)).toBe(2);
      expect(await hooks.get('h', load)).toBe(3);
      expect([await tokens.get('a', load), await hooks.get('h', load)]).toEqual([2, 3]);
      db.counts.set('users_token', 1); // another process
      await new Promise((r) => setTimeout(r, POLL_TIMING.pollMs + 50)); // the next poll
      expect([await tokens.get('a', load), await hooks.get('h', load)]).toEqual([4, 3]);
    } finally {
      await feed.close();
    }
  });
});
