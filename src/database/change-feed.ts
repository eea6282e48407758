import { randomBytes } from 'node:crypto';
import { ChangePoller, type PollDatabase } from './change-poll';
import { writtenTable } from './tx-writes';
import { TableWatch, WatchedCache } from './watched-cache';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';

/** The channel the PostgreSQL triggers of watched tables notify (payload: the table's name). */
export const CHANGE_CHANNEL = 'netkeel_changes';
/** The channel each process notifies itself on, through its pool, to prove its listener hears. */
const PING_CHANNEL = 'netkeel_ping';

/**
 * Timings of the PostgreSQL listener (milliseconds). A cache is trusted only while a ping sent
 * at most `trustMs` ago came back: notifications arrive in commit order, so every change
 * committed before that ping has been heard. Pings go out every `pingMs` while caches are in use
 * (in the last `idleMs`); a listener whose pings stay unanswered `deadMs` is replaced.
 */
const FEED_TIMING = { pingMs: 500, trustMs: 2000, idleMs: 10_000, deadMs: 5000, reconnectMs: 1000 };

/**
 * How this process learns that rows of a watched table changed:
 * - `local`: it is the only writer (PGlite, whose data directory it holds locked), so the
 *   statements it runs tell it all;
 * - `notify`: a PostgreSQL server, which other processes write too: triggers NOTIFY, and one
 *   connection per process LISTENs;
 * - `poll`: a MySQL/MariaDB server: triggers count changes, and each process reads the counts
 *   while its caches are in use (ChangePoller);
 * - `none`: no way to hear other processes: caches built on it are never used.
 */
export type FeedMode = 'local' | 'notify' | 'poll' | 'none';

/** A driver's connection as far as its server's id and its state go: mysql2's or node-postgres's. */
interface DriverConnection {
  /** mysql2: the server's id (CONNECTION_ID()); node-postgres: the backend's process id (pg_backend_pid()). */
  threadId?: number | null;
  processID?: number | null;
  /** mysql2: closing; node-postgres: ending or ended. */
  _closing?: boolean;
  _ending?: boolean;
  stream?: { destroyed?: boolean };
  connection?: { stream?: { destroyed?: boolean } };
}

/** The server's id of a connection still open, or undefined. */
function openConnectionId(c: DriverConnection): number | undefined {
  const id = c.threadId ?? c.processID;
  const stream = c.stream ?? c.connection?.stream;
  return typeof id === 'number' && c._closing !== true && c._ending !== true && stream?.destroyed === false ? id : undefined;
}

/** How many statement texts `ChangeFeed.written` keeps its answer for (the oldest forgotten first), up to which length. */
const WRITES_KEPT = { count: 1000, maxLength: 20_000 };

/**
 * Tells in-process caches when rows of the tables they read may have changed: through the
 * statements this process runs (the `Db` gateway reports each one) and, from other processes,
 * through PostgreSQL's notifications or MySQL's polled change counts (ChangePoller). See
 * docs/architecture.md, "Caches of watched tables".
 */
export class ChangeFeed {
  private readonly byTable = new Map<string, TableWatch[]>();
  /** Watches whose tables a delete from the key's table changes by a foreign key's cascade (or SET NULL). */
  private readonly byParent = new Map<string, TableWatch[]>();
  /** `written`'s answers by statement text (each scan reads a statement of kilobytes once per watched table). */
  private readonly writes = new Map<string, TableWatch[] | undefined>();
  private readonly logger = new Logger('ChangeFeed');
  private readonly id = randomBytes(6).toString('hex');
  private client?: Client;
  private connecting?: Promise<void>;
  private lastAttempt = 0;
  private epoch = 0;
  private seq = 0;
  /** Pings of the current listener not yet heard back: seq -> when sent. */
  private readonly pending = new Map<number, number>();
  private confirmedAt = 0;
  private lastPing = 0;
  private lastUse = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private warned = false;
  /** What to do when another process signals a channel (`onSignal`), by channel. */
  private readonly signals = new Map<string, () => void>();
  /** `poll`: reads the change counts. */
  private readonly poller?: ChangePoller;
  /** Tables only counted (`count`). */
  private readonly counted = new Set<string>();
  /** The connections this process's statements ran on (`ranOn`). */
  private readonly own = new Set<DriverConnection>();

  constructor(
    readonly mode: FeedMode,
    private readonly listen?: { url: string; dataSource: DataSource },
    poll?: Omit<PollDatabase, 'ownSlots'>,
  ) {
    if (mode === 'poll') {
      if (!poll) throw new Error('a polling change feed needs its database');
      // A watched table's count that moved may also be a delete that cascaded into others' tables.
      this.poller = new ChangePoller({ ...poll, ownSlots: () => this.ownConnectionIds() }, () => this.watchedTables, (table) => {
        for (const w of [...(this.byTable.get(table) ?? []), ...(this.byParent.get(table) ?? [])]) w.changed();
      });
    }
  }

  /**
   * `cascadeFrom`: the tables whose deleted rows the database's foreign keys delete from (or
   * clear in) `tables`: such a delete names no watched table, and on MySQL/MariaDB no trigger
   * counts what a cascade removes, so this process must tell from the parent's DELETE.
   */
  watch(tables: string[], cascadeFrom: string[] = []): TableWatch {
    const w = new TableWatch(this);
    for (const t of tables) this.byTable.set(t, [...(this.byTable.get(t) ?? []), w]);
    for (const t of cascadeFrom) this.byParent.set(t, [...(this.byParent.get(t) ?? []), w]);
    this.writes.clear();
    return w;
  }

  /**
   * MySQL/MariaDB: tables whose change counts something reads in its own statements (a detail's
   * kept values: kept-values.ts), with no cache of this process to empty: the poller checks
   * their triggers (`counts`) and polls them like a cache's tables.
   */
  count(tables: readonly string[]): void {
    for (const t of tables) this.counted.add(t);
  }

  /** Every table some cache watches or something counts (each needs its change triggers: declared `watched`, checked by the drift test). */
  get watchedTables(): string[] {
    if (!this.counted.size) return [...this.byTable.keys()];
    return [...new Set([...this.byTable.keys(), ...this.counted])];
  }

  cache<K, V>(tables: string[], opts: { max: number; ttlMs: number; unheardTtlMs?: number; cascadeFrom?: string[] }): WatchedCache<K, V> {
    return new WatchedCache<K, V>(this.watch(tables, opts.cascadeFrom), opts.max, opts.ttlMs, opts.unheardTtlMs);
  }

  /**
   * The watches a statement may change: it names a watched table and may write. The
   * `Db` gateway bumps them before the statement and again once it, or its transaction, ended.
   */
  written(text: string, keep = true): TableWatch[] | undefined {
    // The same texts come back (the statements of each kind of request): the answer is kept
    // (`keep`: unless the text is one of a kind).
    if (!keep) return this.watchesWritten(text);
    if (this.writes.has(text)) return this.writes.get(text);
    const out = this.watchesWritten(text);
    if (text.length > WRITES_KEPT.maxLength) return out;
    if (this.writes.size >= WRITES_KEPT.count) this.writes.delete(this.writes.keys().next().value!);
    this.writes.set(text, out);
    return out;
  }

  private watchesWritten(text: string): TableWatch[] | undefined {
    // A statement that writes one table it names at its head (INSERT INTO t, UPDATE t, DELETE
    // FROM t) writes that one: its text is not searched (a multi-row INSERT's is megabytes).
    const found = writtenTable(text);
    if (!found) return undefined;
    const { table: written, deletes } = found;
    if (written !== null) {
      const cascaded = deletes ? this.byParent.get(written) : undefined;
      return cascaded ? [...(this.byTable.get(written) ?? []), ...cascaded] : this.byTable.get(written);
    }
    // Any other that may write (a writable CTE, a multi-table UPDATE or DELETE, TRUNCATE: see
    // writtenTable) may write every watched table it names, and delete from any parent it names.
    let out: TableWatch[] | undefined;
    for (const map of [this.byTable, this.byParent]) {
      for (const [table, watches] of map) {
        if (!text.includes(table)) continue;
        out = out ? [...out, ...watches] : watches;
      }
    }
    return out;
  }

  /**
   * The `Db` gateway reports the connection each statement ran on (TypeORM's query runner's, once
   * connected). Another process's change arrives with the id of the connection that made it (the
   * PostgreSQL backend that notified, the MySQL connection whose slot counted it); one of these
   * connections' changes this process heard as it made them (`written`), and hearing it again
   * would empty its caches a second time, at a moment no request chose.
   */
  ranOn(queryRunner: unknown): void {
    if (this.mode !== 'notify' && this.mode !== 'poll') return;
    const c = (queryRunner as { databaseConnection?: DriverConnection }).databaseConnection;
    if (c) this.own.add(c);
  }

  /**
   * The server's ids of this process's open connections that ran statements. A connection that
   * is closing, or whose socket is gone, is forgotten: after a server's restart (or, on
   * PostgreSQL, once the process id is reused) its id may be another's.
   */
  ownConnectionIds(): Set<number> {
    const out = new Set<number>();
    for (const c of this.own) {
      const id = openConnectionId(c);
      if (id === undefined) this.own.delete(c);
      else out.add(id);
    }
    return out;
  }

  /**
   * MySQL/MariaDB: whether every change to these tables committed until now is counted and the
   * counts are there to read: the feed is trusted and the poller found each table's triggers
   * (a table first watched is checked at the next poll). False on other databases.
   */
  counts(tables: readonly string[]): boolean {
    return !!this.poller && this.poller.trusted() && this.poller.triggersFound(tables);
  }

  /** MySQL/MariaDB: moves when counts may have been missed or lost (ChangePoller.epoch). */
  get countsEpoch(): number {
    return this.poller?.epoch ?? 0;
  }

  trusted(): boolean {
    if (this.poller) return this.poller.trusted();
    if (this.mode !== 'notify') return this.mode === 'local';
    const now = Date.now();
    this.lastUse = now;
    if (!this.client) {
      this.connect(now);
      return false;
    }
    if (now - this.confirmedAt <= FEED_TIMING.trustMs) return true;
    this.ping(now);
    return false;
  }

  /**
   * Tells the other processes on the database that something happened (PostgreSQL: a
   * notification on `channel`, sent through the pool and not counted as a statement). Elsewhere
   * nothing is sent: the others find out by polling.
   */
  signal(channel: string): void {
    if (this.mode !== 'notify' || !this.listen) return;
    this.listen.dataSource.query('SELECT pg_notify($1, $2)', [channel, this.id]).catch(() => undefined);
  }

  /**
   * Calls `fn` whenever another process signals `channel` (PostgreSQL), as long as the listener
   * is connected: whoever relies on it calls `keepListening` now and then, and polls anyway.
   */
  onSignal(channel: string, fn: () => void): void {
    this.signals.set(channel, fn);
    this.client?.query(`LISTEN ${channel}`).catch(() => undefined);
    this.keepListening();
  }

  /** Connects the listener if it is not (at most once a second): for signals, which no cache's use keeps up. */
  keepListening(): void {
    if (this.mode === 'notify' && !this.client) this.connect(Date.now());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.poller?.close();
    if (this.timer) clearInterval(this.timer);
    await this.connecting; // a listener still connecting ends itself on seeing `closed`
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private bumpAll(): void {
    for (const watches of this.byTable.values()) for (const w of watches) w.changed();
  }

  private connect(now: number): void {
    if (this.closed || this.connecting || now - this.lastAttempt < FEED_TIMING.reconnectMs || !this.listen) return;
    this.lastAttempt = now;
    const client = new Client({ connectionString: this.listen.url, application_name: 'netkeel-change-feed' });
    client.on('notification', (m) => this.heard(client, m.channel, m.payload ?? '', m.processId));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    this.connecting = (async () => {
      try {
        await client.connect();
        await client.query(`LISTEN ${CHANGE_CHANNEL}`);
        await client.query(`LISTEN ${PING_CHANNEL}`);
        for (const channel of this.signals.keys()) await client.query(`LISTEN ${channel}`);
        if (this.closed) throw new Error('closed');
        this.client = client;
        this.epoch++;
        this.pending.clear();
        this.lastPing = 0;
        this.timer ??= setInterval(() => this.tick(), FEED_TIMING.pingMs).unref();
        this.ping(Date.now());
      } catch (err) {
        if (!this.closed && !this.warned) {
          this.warned = true;
          this.logger.warn(`Cannot listen for changes (${(err as Error).message}): caches stay off until it can`);
        }
        await client.end().catch(() => undefined);
      } finally {
        this.connecting = undefined;
      }
    })();
  }

  /** The listener's connection ended or failed: what it would have heard is unknown. */
  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.confirmedAt = 0;
    this.bumpAll();
    void client.end().catch(() => undefined);
  }

  private heard(client: Client, channel: string, payload: string, from: number): void {
    if (client !== this.client) return;
    if (channel === CHANGE_CHANNEL) {
      const watches = this.byTable.get(payload);
      if (!watches || this.ownConnectionIds().has(from)) return; // none to tell, or heard as it was made (`ranOn`)
      for (const w of watches) w.changed();
      return;
    }
    const signalled = this.signals.get(channel);
    if (signalled) {
      if (payload !== this.id) signalled(); // its own signal: this process already knows
      return;
    }
    const [id, epoch, seq] = payload.split(':');
    if (id !== this.id || Number(epoch) !== this.epoch) return;
    const sentAt = this.pending.get(Number(seq));
    if (sentAt === undefined) return;
    for (const s of this.pending.keys()) if (s <= Number(seq)) this.pending.delete(s);
    if (sentAt > this.confirmedAt) {
      this.confirmedAt = sentAt;
      this.warned = false;
    }
  }

  private tick(): void {
    const now = Date.now();
    if (!this.client || now - this.lastUse > FEED_TIMING.idleMs) return;
    const oldest = this.pending.values().next().value;
    if (oldest !== undefined && now - oldest > FEED_TIMING.deadMs) {
      // LISTEN was accepted but nothing arrives (a pooler in transaction mode, a dead link).
      if (!this.warned) {
        this.warned = true;
        this.logger.warn('Change notifications do not arrive: caches stay off; reconnecting');
      }
      this.lost(this.client);
      return;
    }
    this.ping(now);
  }

  /** Sends a ping through the pool, as any other process's change would arrive (not counted as a statement). */
  private ping(now: number): void {
    if (!this.client || !this.listen) return;
    if (now - this.lastPing < FEED_TIMING.pingMs / 2) return;
    this.lastPing = now;
    const seq = ++this.seq;
    this.pending.set(seq, now);
    this.listen.dataSource.query('SELECT pg_notify($1, $2)', [PING_CHANNEL, `${this.id}:${this.epoch}:${seq}`]).catch(() => undefined);
  }
}
