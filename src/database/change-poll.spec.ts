import { ChangeFeed } from './change-feed';
import { ChangePoller, FOLD_ROWS, POLL_TIMING } from './change-poll';
import { mysqlChangeTriggers } from './schema/names';

/**
 * A database as the poller sees it: the triggers present, and the count rows (table, slot,
 * changes) the triggers keep, or a failure. `counts` sets a table's total in one row of slot 1.
 * `mayCreate`: whether its user may create triggers (else MySQL's 1142, TRIGGER command denied).
 */
function fakeDatabase(tables: string[]) {
  type CountRow = { t: string; s: number; n: bigint };
  const db: {
    triggers: string[];
    rows: CountRow[];
    locked: Set<CountRow>;
    fail: boolean;
    mayCreate: boolean;
    statements: string[];
    counts: { set: (t: string, n: number) => void; delete: (t: string) => void };
    sums: () => Map<string, bigint>;
    own: Set<number>;
    ownSlots: () => Set<number>;
    query: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;
    transaction: (fn: (q: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>) => Promise<void>) => Promise<void>;
  } = {
    triggers: tables.flatMap((t) => mysqlChangeTriggers(t).map((tr) => tr.name)),
    rows: [] as CountRow[],
    /** Rows an open transaction holds (FOR UPDATE SKIP LOCKED passes them by). */
    locked: new Set<CountRow>(),
    fail: false,
    mayCreate: false,
    statements: [] as string[],
    counts: {
      set: (t: string, n: number) => {
        db.rows = db.rows.filter((r) => r.t !== t);
        db.rows.push({ t, s: 1, n: BigInt(n) });
      },
      delete: (t: string) => void (db.rows = db.rows.filter((r) => r.t !== t)),
    },
    sums: () => {
      const out = new Map<string, bigint>();
      for (const r of db.rows) out.set(r.t, (out.get(r.t) ?? 0n) + r.n);
      return out;
    },
    own: new Set<number>(),
    ownSlots: () => db.own,
    query: async (text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> => {
      const poll = text.startsWith('SELECT `') && !text.includes('FOR UPDATE');
      db.statements.push(text.includes('information_schema') ? 'triggers' : poll ? 'counts' : text.split(' ')[0].toLowerCase());
      if (db.fail) throw new Error("Table 'netkeel_change_counts' doesn't exist");
      if (text.includes('information_schema')) return db.triggers.map((n) => ({ n }));
      if (poll) return db.rows.map((r) => ({ t: r.t, s: r.s, n: r.n.toString() }));
      if (text.startsWith('SELECT DATABASE()')) return [{ d: 'netkeel' }];
      if (text.startsWith('USE ')) return [];
      if (text.startsWith('CREATE TRIGGER')) {
        if (!db.mayCreate) throw Object.assign(new Error('TRIGGER command denied to user'), { errno: 1142 });
        db.triggers.push(/^CREATE TRIGGER `([^`]+)`/.exec(text)![1]);
        return [];
      }
      if (text.includes('FOR UPDATE SKIP LOCKED')) return db.rows.filter((r) => r.s !== 0 && !db.locked.has(r)).map((r) => ({ t: r.t, s: r.s, n: r.n.toString() }));
      if (text.startsWith('DELETE')) {
        db.rows = db.rows.filter((r) => !(r.t === params[0] && r.s === params[1]));
        return [];
      }
      if (text.startsWith('INSERT')) {
        for (let i = 0; i < params.length; i += 2) {
          const base = db.rows.find((r) => r.t === params[i] && r.s === 0);
          if (base) base.n += BigInt(String(params[i + 1]));
          else db.rows.push({ t: String(params[i]), s: 0, n: BigInt(String(params[i + 1])) });
        }
        return [];
      }
      throw new Error(`unexpected statement ${text}`);
    },
    transaction: async (fn: (q: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>) => Promise<void>): Promise<void> => {
      const before = db.rows.map((r) => ({ ...r }));
      try {
        await fn(db.query);
      } catch (err) {
        db.rows = before;
        throw err;
      }
    },
  };
  return db;
}

describe('ChangePoller (MySQL/MariaDB)', () => {
  const pollers: ChangePoller[] = [];
  afterAll(() => pollers.forEach((p) => p.close()));
  const poller = (db: ReturnType<typeof fakeDatabase>, tables: string[] | (() => string[]), changed: string[]) => {
    const p = new ChangePoller(db, typeof tables === 'function' ? tables : () => tables, (t) => changed.push(t));
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

  it('never trusts a cache while a watched table lacks its triggers, and drops every cache once they are back', async () => {
    const db = fakeDatabase(['users_token']);
    const changed: string[] = [];
    const p = poller(db, ['users_token', 'users_user'], changed);
    await p.poll(1_000_000);
    expect(p.trusted(1_000_001)).toBe(false);
    await p.poll(1_000_000 + POLL_TIMING.trustMs);
    // The missing ones tried (this user may not), nothing more read: the check is made once a minute.
    expect(db.statements).toEqual(['triggers', 'select', 'use', 'create']);
    db.triggers.push(...mysqlChangeTriggers('users_user').map((tr) => tr.name));
    const later = 1_000_000 + POLL_TIMING.triggersCheckMs + 1;
    await p.poll(later);
    expect(db.statements).toEqual(['triggers', 'select', 'use', 'create', 'triggers', 'counts']);
    // What changed while they were missing went uncounted: every table is told.
    expect(changed.sort()).toEqual(['users_token', 'users_user']);
    expect(p.trusted(later + 1)).toBe(true);
    // And a trigger dropped later is found at the next check: nothing is trusted from then on.
    db.triggers = db.triggers.filter((n) => !n.startsWith('users_user'));
    await p.poll(later + POLL_TIMING.triggersCheckMs + 1);
    expect(p.trusted(later + POLL_TIMING.triggersCheckMs + 2)).toBe(false);
  });

  it('adds the missing triggers where its user may (rights granted since the migration), then trusts once they are there', async () => {
    const db = fakeDatabase(['users_token']);
    const changed: string[] = [];
    const p = poller(db, ['users_token', 'users_user'], changed);
    await p.poll(1_000_000);
    expect([p.trusted(1_000_001), db.triggers.some((n) => n.startsWith('users_user'))]).toEqual([false, false]);
    db.mayCreate = true; // the right granted
    const later = 1_000_000 + POLL_TIMING.triggersCheckMs + 1;
    await p.poll(later);
    expect(db.triggers.filter((n) => n.startsWith('users_user')).sort()).toEqual(mysqlChangeTriggers('users_user').map((tr) => tr.name).sort());
    expect(db.statements).toEqual(['triggers', 'select', 'use', 'create', 'triggers', 'select', 'use', 'create', 'create', 'create', 'triggers', 'counts']);
    expect(p.trusted(later + 1)).toBe(true);
    expect(changed.sort()).toEqual(['users_token', 'users_user']); // what went uncounted meanwhile: every table told
  });

  it('drops every cache and moves its epoch when it adds triggers dropped while it trusted the counts', async () => {
    const db = fakeDatabase(['users_token']);
    db.mayCreate = true;
    const changed: string[] = [];
    const p = poller(db, ['users_token'], changed);
    await p.poll(1_000_000);
    expect(p.trusted(1_000_001)).toBe(true);
    db.triggers = []; // dropped by hand; changes made meanwhile go uncounted
    const later = 1_000_000 + POLL_TIMING.triggersCheckMs + 1;
    await p.poll(later);
    expect(db.triggers.sort()).toEqual(mysqlChangeTriggers('users_token').map((tr) => tr.name).sort());
    expect([changed, p.epoch, p.trusted(later + 1)]).toEqual([['users_token'], 1, true]);
  });

  it('says a table is counted only once a check found its triggers, and none while any watched table lacks them', async () => {
    const db = fakeDatabase(['users_token', 'dcim_rack']);
    const tables = ['users_token'];
    const p = poller(db, () => tables, []);
    expect(p.triggersFound(['users_token'])).toBe(false); // not checked yet
    await p.poll(1_000_000);
    expect([p.triggersFound(['users_token']), p.triggersFound(['users_token', 'dcim_rack'])]).toEqual([true, false]);
    // A table first watched (kept-values.ts) is checked at the next poll, not taken on trust.
    tables.push('dcim_rack');
    await p.poll(1_000_000 + POLL_TIMING.pollMs);
    expect(db.statements.filter((s) => s === 'triggers')).toHaveLength(2);
    expect(p.triggersFound(['users_token', 'dcim_rack'])).toBe(true);
    // One whose triggers go (a dump restored without them): no table is counted until they are back.
    tables.push('dcim_device');
    await p.poll(1_000_000 + 2 * POLL_TIMING.pollMs);
    expect([p.triggersFound(['users_token']), p.triggersFound(['dcim_rack'])]).toEqual([false, false]);
  });

  it('moves its epoch when counts may have been lost: triggers missing or back, a sum gone down; not when sums grow', async () => {
    const db = fakeDatabase(['users_token']);
    const p = poller(db, ['users_token'], []);
    let now = 1_000_000;
    const poll = async () => p.poll((now += POLL_TIMING.pollMs));
    db.counts.set('users_token', 5);
    await poll();
    db.counts.set('users_token', 7);
    await poll();
    expect(p.epoch).toBe(0);
    db.counts.set('users_token', 6); // rows changed by hand, a backup restored
    await poll();
    expect(p.epoch).toBe(1);
    db.counts.delete('users_token');
    await poll();
    expect(p.epoch).toBe(2);
    db.triggers = [];
    now += POLL_TIMING.triggersCheckMs;
    await poll();
    expect(p.epoch).toBe(3);
    db.triggers = mysqlChangeTriggers('users_token').map((tr) => tr.name);
    now += POLL_TIMING.triggersCheckMs;
    await poll();
    expect(p.epoch).toBe(4);
  });

  it("leaves this process's own connections' counts out: its writes were heard as it made them", async () => {
    const db = fakeDatabase(['users_token']);
    const changed: string[] = [];
    const p = poller(db, ['users_token'], changed);
    db.rows.push({ t: 'users_token', s: 7, n: 1n }, { t: 'users_token', s: 8, n: 1n });
    db.own.add(7);
    let now = 1_000_000;
    await p.poll(now);
    db.rows[0].n += 5n; // this process's connection 7
    await p.poll((now += POLL_TIMING.pollMs));
    expect(changed).toEqual([]);
    db.rows[1].n += 1n; // another process's connection 8
    await p.poll((now += POLL_TIMING.pollMs));
    expect(changed).toEqual(['users_token']);
    // Connection 7 closed: its row joins the sums, which is heard once.
    db.own.clear();
    await p.poll((now += POLL_TIMING.pollMs));
    expect(changed).toEqual(['users_token', 'users_token']);
    await p.poll((now += POLL_TIMING.pollMs));
    expect(changed).toHaveLength(2);
  });

  it('folds the rows of connections into slot 0 past FOLD_ROWS, leaving the sums and what polls tell as they were', async () => {
    const db = fakeDatabase(['users_token', 'users_user']);
    const changed: string[] = [];
    const p = poller(db, ['users_token', 'users_user'], changed);
    // A connection per row, as the triggers write them; one row held by an open transaction.
    for (let s = 1; s <= FOLD_ROWS; s++) db.rows.push({ t: s % 3 ? 'users_token' : 'users_user', s, n: BigInt(s) });
    const held = db.rows[0];
    db.locked.add(held);
    const sums = db.sums();
    let now = 1_000_000;
    await p.poll(now); // the baseline; FOLD_ROWS rows: nothing to fold yet
    expect(db.rows).toHaveLength(FOLD_ROWS);
    db.rows.push({ t: 'users_user', s: 9999, n: 1n }); // one more connection writes
    now += POLL_TIMING.pollMs;
    await p.poll(now);
    await new Promise((r) => setImmediate(r)); // the fold it started
    expect(changed).toEqual(['users_user']);
    // Folded: slot 0 per table, and the held row as it was.
    expect(db.rows.map((r) => `${r.t}/${r.s}`).sort()).toEqual([`${held.t}/${held.s}`, 'users_token/0', 'users_user/0'].sort());
    expect(db.sums()).toEqual(new Map([...sums, ['users_user', sums.get('users_user')! + 1n]]));
    now += POLL_TIMING.pollMs;
    await p.poll(now);
    expect(changed).toEqual(['users_user']); // a fold is no change
  });

  it("empties a feed's caches of the tables whose counts moved, and no others", async () => {
    const db = fakeDatabase(['users_token', 'extras_webhook', 'extras_webhook_content_types']);
    const feed = new ChangeFeed('poll', undefined, db);
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
      // A watched table whose deletes cascade into a cache's tables: its count moving empties it.
      const links = feed.cache<string, number>(['extras_webhook_content_types'], { max: 10, ttlMs: 60_000, cascadeFrom: ['extras_webhook'] });
      expect([await links.get('l', load), await links.get('l', load)]).toEqual([5, 5]);
      db.counts.set('extras_webhook', 1);
      await new Promise((r) => setTimeout(r, POLL_TIMING.pollMs + 50));
      expect([await links.get('l', load), await tokens.get('a', load)]).toEqual([6, 4]);
    } finally {
      await feed.close();
    }
  });
});
