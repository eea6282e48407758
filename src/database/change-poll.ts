import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { CHANGE_COUNTS_TABLE, mysqlChangeTriggers } from './schema/names';

/**
 * Timings of the MySQL/MariaDB poller (milliseconds). A cache is trusted only while a poll that
 * started at most `trustMs` ago came back: it saw every change committed before it started.
 * Polls go out every `pollMs` while caches are in use (in the last `idleMs`).
 */
export const POLL_TIMING = { pollMs: 250, trustMs: 2000, idleMs: 10_000, triggersCheckMs: 60_000 };

/** ER_TRG_ALREADY_EXISTS. */
const TRIGGER_EXISTS = 1359;

/** Fold the counts of connections into slot 0 once the table holds more rows than this. */
export const FOLD_ROWS = 256;

type Query = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * Where the poller reads: statements on the pool, outside any transaction, and a transaction of
 * its own; and the slots this process's own writes count in (the ids of its open connections).
 */
export interface PollDatabase {
  query: Query;
  transaction(fn: (query: Query) => Promise<void>): Promise<void>;
  ownSlots(): Set<number>;
}

/** The pool's statements and transactions (the feed adds its own connections' slots: `ChangeFeed.ownConnectionIds`). */
export const poolDatabase = (dataSource: DataSource): Omit<PollDatabase, 'ownSlots'> => ({
  query: (text, params) => dataSource.query(text, params),
  transaction: (fn) => dataSource.transaction((m) => fn((text, params) => m.query(text, params))),
});

/**
 * How a process on MySQL/MariaDB hears of other processes' changes to watched tables, which
 * that database cannot notify: the row triggers of every watched table count its changes in
 * CHANGE_COUNTS_TABLE (ddl.ts, `watch`), and this reads the sums per table every `pollMs` while
 * caches are in use, telling `changed` the tables whose sums moved. The first poll, and one a
 * minute after, checks that every watched table has its triggers (a database user that may not
 * create triggers left them out, see the migration ChangeCounts; a dump restored without them),
 * and adds those missing where this process's user may (`addTriggers`): while any is missing
 * nothing is trusted. Each connection that writes a watched table counts
 * in a row of its own; once there are more than FOLD_ROWS rows, the poller folds the rows no open
 * transaction holds into slot 0, in one transaction, so that the sums (and what every poll sees)
 * stay the same. The rows of this process's open connections are left out of its sums: this
 * process heard its own writes as it made them (`ChangeFeed.written`), and hearing them again at
 * the next poll would empty its caches a second time (a row of a connection that closed, or one
 * folded, then joins the sums: one such emptying more).
 */
export class ChangePoller {
  private readonly logger = new Logger('ChangeFeed');
  /** The sums of the last poll, by table (none before the first). */
  private seen?: Map<string, string>;
  /** The watched tables whose triggers were found, and when. */
  private readonly checked = new Set<string>();
  private checkedAt = 0;
  private missing = false;
  private inFlight = false;
  private folding = false;
  private confirmedAt = 0;
  private lastPoll = 0;
  private lastUse = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private warned = false;
  /**
   * Moves whenever counts may have been missed or lost: triggers found missing, or back, and a
   * table's sum that went down (its count rows deleted or restored by hand). What was checked
   * against the sums (kept-values.ts) is not trusted across it.
   */
  epoch = 0;

  constructor(
    private readonly db: PollDatabase,
    private readonly watchedTables: () => string[],
    private readonly changed: (table: string) => void,
    private readonly timing = POLL_TIMING,
  ) {}

  trusted(now = Date.now()): boolean {
    this.lastUse = now;
    if (!this.missing && now - this.confirmedAt <= this.timing.trustMs) return true;
    void this.poll(now);
    return false;
  }

  /** Whether the last check of the triggers found every one of these tables' (none is missing since). */
  triggersFound(tables: readonly string[]): boolean {
    return !this.missing && tables.every((t) => this.checked.has(t));
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }

  /** Reads the counts (at most one poll at a time, and not twice within half a period). */
  async poll(now = Date.now()): Promise<void> {
    if (this.closed || this.inFlight || now - this.lastPoll < this.timing.pollMs / 2) return;
    // Without the triggers, nothing but their check once a minute.
    if (this.missing && now - this.checkedAt <= this.timing.triggersCheckMs) return;
    this.lastPoll = now;
    this.inFlight = true;
    this.timer ??= setInterval(() => this.tick(), this.timing.pollMs).unref();
    try {
      const tables = this.watchedTables();
      const check = this.missing || now - this.checkedAt > this.timing.triggersCheckMs || tables.some((t) => !this.checked.has(t));
      if (check && !(await this.triggersPresent(tables, now))) return;
      const rows = await this.db.query(`SELECT \`table_name\` AS t, \`slot\` AS s, \`changes\` AS n FROM \`${CHANGE_COUNTS_TABLE}\``);
      const own = this.db.ownSlots();
      const totals = new Map<string, bigint>();
      for (const r of rows) if (!own.has(Number(r.s))) totals.set(String(r.t), (totals.get(String(r.t)) ?? 0n) + BigInt(String(r.n)));
      const sums = new Map([...totals].map(([t, n]) => [t, n.toString()]));
      if (rows.length > FOLD_ROWS) void this.fold();
      if (this.seen) {
        for (const t of new Set([...this.seen.keys(), ...sums.keys()])) {
          const before = this.seen.get(t);
          const after = sums.get(t);
          if (before === after) continue;
          // A sum only grows while its rows are the triggers' (folds keep it): one that went down was reset.
          if (before !== undefined && (after === undefined || BigInt(after) < BigInt(before))) this.epoch++;
          this.changed(t);
        }
      }
      this.seen = sums;
      if (now > this.confirmedAt) this.confirmedAt = now;
      this.warned = false;
    } catch (err) {
      if (!this.warned && !this.closed) {
        this.warned = true;
        this.logger.warn(`Cannot read change counts (${(err as Error).message}): caches stay off until it can`);
      }
    } finally {
      this.inFlight = false;
    }
  }

  /** Folds the rows of connections that no open transaction holds into slot 0, per table: the sums do not move. */
  async fold(): Promise<void> {
    if (this.folding || this.closed) return;
    this.folding = true;
    try {
      await this.db.transaction(async (query) => {
        const table = `\`${CHANGE_COUNTS_TABLE}\``;
        const rows = await query(`SELECT \`table_name\` AS t, \`slot\` AS s, \`changes\` AS n FROM ${table} WHERE \`slot\` <> 0 ORDER BY \`table_name\`, \`slot\` FOR UPDATE SKIP LOCKED`);
        if (!rows.length) return;
        const sums = new Map<string, bigint>();
        for (const r of rows) sums.set(String(r.t), (sums.get(String(r.t)) ?? 0n) + BigInt(String(r.n)));
        // One row at a time, by its key: a DELETE of many rows scans the table, and waits on (and
        // deadlocks with) writers holding rows it passes by.
        for (const r of rows) await query(`DELETE FROM ${table} WHERE \`table_name\` = ? AND \`slot\` = ?`, [r.t, r.s]);
        const folded = [...sums].sort(([a], [b]) => (a < b ? -1 : 1));
        await query(
          `INSERT INTO ${table} (\`table_name\`, \`slot\`, \`changes\`) VALUES ${folded.map(() => '(?, 0, ?)').join(', ')} ON DUPLICATE KEY UPDATE \`changes\` = \`changes\` + VALUES(\`changes\`)`,
          folded.flatMap(([t, n]) => [t, n.toString()]),
        );
      });
    } catch (err) {
      // Nothing was folded (the transaction rolled back); the next poll past FOLD_ROWS tries again.
      this.logger.warn(`Cannot fold change counts (${(err as Error).message})`);
    } finally {
      this.folding = false;
    }
  }

  private async triggersPresent(tables: string[], now: number): Promise<boolean> {
    let names = await this.triggerNames();
    const missingOf = () => tables.filter((t) => !mysqlChangeTriggers(t).every((tr) => names.has(tr.name)));
    let without = missingOf();
    let cannot: string | undefined;
    // Added now: what changed while they were missing went uncounted, as for triggers found back.
    const added = without.length > 0;
    if (added) {
      cannot = await this.addTriggers(without, names);
      if (cannot === undefined) {
        names = await this.triggerNames();
        without = missingOf();
      }
    }
    this.checkedAt = now;
    if (without.length) {
      if (!this.missing) {
        this.epoch++;
        this.logger.warn(
          `Watched tables without change triggers (${without.join(', ')}${cannot ? `; cannot add them: ${cannot}` : ''}): caches of users, permissions, definitions and kept values stay off`,
        );
      }
      this.missing = true;
      this.confirmedAt = 0;
      this.checked.clear();
      return false;
    }
    if (this.missing || added) {
      // What changed while they were missing was not counted: every cache is dropped.
      this.missing = false;
      this.epoch++;
      this.seen = undefined;
      for (const t of tables) this.changed(t);
    }
    for (const t of tables) this.checked.add(t);
    return true;
  }

  private async triggerNames(): Promise<Set<string>> {
    const rows = await this.db.query(`SELECT TRIGGER_NAME AS n FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()`);
    return new Set(rows.map((r) => String(r.n)));
  }

  /**
   * Adds the missing change triggers of these tables (as their migrations make them): a database
   * migrated by a user that could not create triggers, granted the right since, gets them at the
   * next check of any process, without a restart. Undefined once added (another process adding
   * the same at once is no error); otherwise why they cannot be (the user still may not), and
   * nothing changed. At most one attempt per check, once a minute.
   */
  private async addTriggers(tables: string[], present: Set<string>): Promise<string | undefined> {
    try {
      // On one connection, which takes up a right on the database granted since it was made
      // only at a USE of it (MySQL and MariaDB alike). Each CREATE TRIGGER commits on its own.
      await this.db.transaction(async (query) => {
        const [{ d }] = await query('SELECT DATABASE() AS d');
        await query(`USE \`${String(d).replace(/`/g, '``')}\``);
        for (const table of tables) {
          for (const tr of mysqlChangeTriggers(table)) {
            if (present.has(tr.name)) continue;
            await query(tr.create).catch((err: { errno?: number; driverError?: { errno?: number } }) => {
              if ((err.errno ?? err.driverError?.errno) !== TRIGGER_EXISTS) throw err;
            });
          }
        }
      });
      this.logger.log(`Added the missing change triggers of ${tables.join(', ')}`);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }

  private tick(): void {
    const now = Date.now();
    if (now - this.lastUse > this.timing.idleMs) return;
    void this.poll(now);
  }
}
