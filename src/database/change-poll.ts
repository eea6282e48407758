import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { CHANGE_COUNTS_TABLE, mysqlChangeTriggers } from './schema/names';

/**
 * Timings of the MySQL/MariaDB poller (milliseconds). A cache is trusted only while a poll that
 * started at most `trustMs` ago came back: it saw every change committed before it started.
 * Polls go out every `pollMs` while caches are in use (in the last `idleMs`).
 */
export const POLL_TIMING = { pollMs: 250, trustMs: 2000, idleMs: 10_000 };

/** What the poller reads: a statement on the pool, outside any transaction. */
export type PollQuery = (text: string) => Promise<Record<string, unknown>[]>;

export const poolQuery =
  (dataSource: DataSource): PollQuery =>
  (text) =>
    dataSource.query(text);

/**
 * How a process on MySQL/MariaDB hears of other processes' changes to watched tables, which
 * that database cannot notify: the row triggers of every watched table count its changes in
 * CHANGE_COUNTS_TABLE (ddl.ts, `watch`), and this reads the sums per table every `pollMs` while
 * caches are in use, telling `changed` the tables whose sums moved. The first poll checks that
 * every watched table has its triggers (a database user that may not create triggers left them
 * out, see the migration ChangeCounts): without them nothing is ever trusted.
 */
export class ChangePoller {
  private readonly logger = new Logger('ChangeFeed');
  /** The sums of the last poll, by table (none before the first). */
  private seen?: Map<string, string>;
  /** The watched tables whose triggers were found. */
  private readonly checked = new Set<string>();
  private missing = false;
  private inFlight = false;
  private confirmedAt = 0;
  private lastPoll = 0;
  private lastUse = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private warned = false;

  constructor(
    private readonly query: PollQuery,
    private readonly watchedTables: () => string[],
    private readonly changed: (table: string) => void,
    private readonly timing = POLL_TIMING,
  ) {}

  trusted(now = Date.now()): boolean {
    this.lastUse = now;
    if (this.missing) return false;
    if (now - this.confirmedAt <= this.timing.trustMs) return true;
    void this.poll(now);
    return false;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }

  /** Reads the counts (at most one poll at a time, and not twice within half a period). */
  async poll(now = Date.now()): Promise<void> {
    if (this.closed || this.missing || this.inFlight || now - this.lastPoll < this.timing.pollMs / 2) return;
    this.lastPoll = now;
    this.inFlight = true;
    this.timer ??= setInterval(() => this.tick(), this.timing.pollMs).unref();
    try {
      const tables = this.watchedTables();
      if (tables.some((t) => !this.checked.has(t)) && !(await this.triggersPresent(tables))) return;
      const rows = await this.query(`SELECT \`table_name\` AS t, SUM(\`changes\`) AS n FROM \`${CHANGE_COUNTS_TABLE}\` GROUP BY \`table_name\``);
      const sums = new Map(rows.map((r) => [String(r.t), String(r.n)]));
      if (this.seen) for (const t of new Set([...this.seen.keys(), ...sums.keys()])) if (this.seen.get(t) !== sums.get(t)) this.changed(t);
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

  private async triggersPresent(tables: string[]): Promise<boolean> {
    const rows = await this.query(`SELECT TRIGGER_NAME AS n FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()`);
    const names = new Set(rows.map((r) => String(r.n)));
    const without = tables.filter((t) => !mysqlChangeTriggers(t).every((tr) => names.has(tr.name)));
    if (without.length) {
      this.missing = true;
      this.logger.warn(`Watched tables without change triggers (${without.join(', ')}): caches of users, permissions and definitions stay off`);
      return false;
    }
    for (const t of tables) this.checked.add(t);
    return true;
  }

  private tick(): void {
    const now = Date.now();
    if (now - this.lastUse > this.timing.idleMs) return;
    void this.poll(now);
  }
}
