import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, QueryRunner } from 'typeorm';
import { ChangeFeed } from './change-feed';
import { TableWatch } from './watched-cache';
import type { Dialect } from './dialect';
import { MysqlStatements } from './mysql-statements';
import { PreparedStatements } from './prepared';
import { pgArrayParam } from './pg-arrays';
import { Sql } from './sql';
import { TxWrites } from './tx-writes';

export type Row = Record<string, any>;

/** Something that runs SQL: the pool (autocommit) or one open transaction. */
export interface Executor {
  readonly dialect: Dialect;
  query<T = Row>(fragment: Sql): Promise<T[]>;
  /** Runs a data-changing statement and returns the number of affected rows. */
  execute(fragment: Sql): Promise<number>;
  /** Inside a transaction: the same executor; outside: opens one. */
  transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  readonly inTransaction: boolean;
  /** Inside a transaction: what it has written (TxWrites); undefined outside. */
  readonly writes?: TxWrites;
}

export interface StatementCounter {
  count: number;
}

/**
 * The one gateway to the database for the resource engine and services: renders Sql for the
 * dialect and runs it on TypeORM query runners. Statement counting (for tests and the
 * benchmark) hooks in here.
 */
export class Db implements Executor {
  readonly inTransaction = false;
  /** Incremented on every statement; tests read it to prove bounded queries per request. */
  statements = 0;
  /**
   * The transaction open in the current async context. A statement issued through the pool
   * while a transaction is open in the same request joins that transaction: it sees the
   * request's own writes, and on PGlite (one session) it cannot wait forever for the session
   * its own transaction holds.
   */
  private readonly current = new AsyncLocalStorage<Tx>();
  /**
   * Transactions open now. While one is, Node tracks the async context of every promise (the
   * cost of AsyncLocalStorage on Node 20: a hook on each promise); when none is, tracking is off,
   * so reads outside transactions (most requests) do not pay for it.
   */
  private open = 0;

  /** On MySQL and MariaDB, how every statement runs (text statements only, unless given one that prepares). */
  readonly mysql: MysqlStatements | undefined;

  constructor(
    readonly dataSource: DataSource,
    readonly dialect: Dialect,
    /**
     * On PostgreSQL and PGlite: statements outside a transaction run prepared, per connection.
     * On MySQL and MariaDB: how statements run (MysqlStatements).
     */
    readonly prepared?: PreparedStatements | MysqlStatements,
    /** Caches of watched tables learn here of every statement that may change them. */
    readonly feed: ChangeFeed = new ChangeFeed('none'),
  ) {
    this.mysql = dialect.name === 'mysql' ? (prepared instanceof MysqlStatements ? prepared : new MysqlStatements(false)) : undefined;
  }

  /** MySQL/MariaDB: the database's indexes by table, read once when first needed (`indexNames`). */
  private indexes?: Promise<Map<string, { name: string; columns: string[] }[]>>;

  /**
   * MySQL/MariaDB: the indexes of a table as the database names them (their names are the
   * migrations', not always the declarations'), read from information_schema once per process,
   * on the pool (not counted as a statement: it reads no table of netkeel's). Empty on
   * PostgreSQL. `forget`: read them again next time (an index a hint named is gone).
   */
  async indexNames(table: string, forget = false): Promise<{ name: string; columns: string[] }[]> {
    if (this.dialect.name !== 'mysql') return [];
    if (forget) this.indexes = undefined;
    this.indexes ??= this.dataSource
      .query(
        'SELECT TABLE_NAME AS t, INDEX_NAME AS n, COLUMN_NAME AS c FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX',
      )
      .then((rows: { t: string; n: string; c: string }[]) => {
        const out = new Map<string, { name: string; columns: string[] }[]>();
        for (const r of rows) {
          const list = out.get(r.t) ?? [];
          if (list.at(-1)?.name !== r.n) list.push({ name: r.n, columns: [] });
          list.at(-1)!.columns.push(r.c);
          out.set(r.t, list);
        }
        return out;
      })
      .catch(() => new Map());
    return (await this.indexes).get(table) ?? [];
  }

  async query<T = Row>(fragment: Sql): Promise<T[]> {
    const tx = this.current.getStore();
    if (tx) return tx.query<T>(fragment);
    const qr = this.dataSource.createQueryRunner();
    try {
      return (await run(this, qr, fragment, true)).records as T[];
    } finally {
      await qr.release();
    }
  }

  async execute(fragment: Sql): Promise<number> {
    const tx = this.current.getStore();
    if (tx) return tx.execute(fragment);
    const qr = this.dataSource.createQueryRunner();
    try {
      return (await run(this, qr, fragment, true)).affected ?? 0;
    } finally {
      await qr.release();
    }
  }

  /**
   * A transaction that runs again, from the start, when it lost a race: a unique key another
   * transaction committed first, or a deadlock the database broke by rolling this one back.
   * For writes whose values are chosen inside the transaction (the next free address, a user
   * for a new identity): the next attempt sees what the winner committed. Not inside another
   * transaction, where a retry could not undo the outer one's work.
   */
  async retryingTransaction<T>(fn: (tx: Executor) => Promise<T>, attempts = 4): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction(fn);
      } catch (e) {
        const kind = this.dialect.errorKind(e);
        if (attempt < attempts && !this.current.getStore() && (kind === 'unique' || kind === 'deadlock')) continue;
        throw e;
      }
    }
  }

  /**
   * Runs `fn` once the transaction open in the current async context commits (never, if it
   * rolls back), outside any transaction; at once when none is open. For work that must see
   * what the transaction wrote and must not join it (waking the job worker).
   */
  afterCommit(fn: () => void): void {
    const tx = this.current.getStore();
    if (tx) tx.committed.push(fn);
    else fn();
  }

  /** Whether a statement issued through this gateway now would join a transaction open in the current async context. */
  get inTransactionHere(): boolean {
    return this.open > 0 && this.current.getStore() !== undefined;
  }

  async transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    const open = this.current.getStore();
    if (open) return fn(open);
    const qr = this.dataSource.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    this.statements++;
    const tx = new Tx(this, qr);
    this.open++;
    try {
      const result = await this.current.run(tx, () => fn(tx));
      await tx.end();
      await qr.commitTransaction();
      this.statements++;
      for (const cb of tx.committed) this.current.exit(cb);
      return result;
    } catch (err) {
      // A statement the work started and did not wait for (one branch of a Promise.all that
      // another branch's failure cut short) may still be running on the connection: the
      // rollback waits for it, and anything the work issues after this point is refused.
      await tx.end();
      if (qr.isTransactionActive) {
        await qr.rollbackTransaction().catch(() => undefined);
        this.statements++;
      }
      throw err;
    } finally {
      // What the transaction wrote to watched tables is committed (or gone) now.
      for (const w of tx.touched) w.changed();
      if (--this.open === 0) this.current.disable(); // the next run() enables it again
      await qr.release();
    }
  }
}

/** A statement issued through a transaction that has already committed or rolled back. */
class TransactionEndedError extends Error {
  constructor() {
    super('statement issued after its transaction ended');
  }
}

/**
 * One open transaction: a single connection, so its statements run one after another even when
 * the engine issues them concurrently (Promise.all over related loads).
 */
class Tx implements Executor {
  readonly inTransaction = true;
  /** Watched tables this transaction may have changed. */
  readonly touched = new Set<TableWatch>();
  /** What runs once it commits (Db.afterCommit). */
  readonly committed: (() => void)[] = [];
  readonly writes = new TxWrites();
  private queue: Promise<unknown> = Promise.resolve();
  private ended = false;
  constructor(private readonly db: Db, private readonly qr: QueryRunner) {}
  get dialect() {
    return this.db.dialect;
  }
  /**
   * Waits for every statement issued so far, then refuses new ones: the connection is about to
   * commit or roll back, and then goes back to the pool, where a late statement would run
   * outside the transaction, on a connection another request may hold.
   */
  async end(): Promise<void> {
    for (let last = this.queue; ; last = this.queue) {
      await last;
      if (last === this.queue) break;
    }
    this.ended = true;
  }
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const guarded = () => (this.ended ? Promise.reject(new TransactionEndedError()) : fn());
    const next = this.queue.then(guarded, guarded);
    this.queue = next.catch(() => undefined);
    return next;
  }
  async query<T = Row>(fragment: Sql): Promise<T[]> {
    return this.serial(async () => (await run(this.db, this.qr, fragment, false, this)).records as T[]);
  }
  async execute(fragment: Sql): Promise<number> {
    return this.serial(async () => (await run(this.db, this.qr, fragment, false, this)).affected ?? 0);
  }
  transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    return fn(this);
  }
}

/**
 * Runs one statement. `prepare`: outside a transaction, as a prepared statement (PostgreSQL and
 * PGlite: PreparedStatements; MySQL and MariaDB: MysqlStatements, which runs every statement).
 * Inside a transaction statements are planned each time: a bulk write checks its
 * rows against tables it is growing, and a plan cached while a table was small (PostgreSQL plans
 * a prepared statement again only when the table's statistics change) would scan the whole
 * table once it has grown.
 */
async function run(db: Db, qr: QueryRunner, fragment: Sql, prepare: boolean, tx?: Tx): Promise<{ records: Row[]; affected?: number }> {
  const { text, params, inlined } = db.dialect.render(fragment);
  db.statements++;
  // A statement that may change watched tables empties their caches before it runs (no read
  // racing it is stored) and again once its change is committed: here, or at its transaction's end.
  // A text holding values (inlined) is one of a kind: neither kept nor prepared.
  const touched = db.feed.written(text, !inlined);
  tx?.writes.statement(text);
  if (touched) for (const w of touched) w.changed();
  try {
    if (db.mysql) return await db.mysql.run(qr, text, params, prepare && !inlined);
    for (let i = 0; i < params.length; i++) if (Array.isArray(params[i])) params[i] = pgArrayParam(params[i] as unknown[]);
    if (prepare && db.prepared instanceof PreparedStatements) return await db.prepared.run(qr, text, params);
    const res = await qr.query(text, params, true);
    return { records: (res.records ?? []) as Row[], affected: res.affected ?? undefined };
  } finally {
    db.feed.ranOn(qr);
    if (touched) for (const w of touched) tx ? tx.touched.add(w) : w.changed();
  }
}
