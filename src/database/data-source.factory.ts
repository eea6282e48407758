import type { PGlite } from '@electric-sql/pglite';
import { Logger } from '@nestjs/common';
import { DataSource, DataSourceOptions } from 'typeorm';
import { Dialect, mysqlDialect, postgresDialect } from './dialect';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { lockDataDir } from './pglite/data-dir-lock';
import { DEFAULT_SNAPSHOT_DIR, readSnapshot, unpackSnapshot } from './pglite/snapshot';
import { SnakeNamingStrategy } from './naming.strategy';
import { PreparedStatements } from './prepared';
import { MysqlStatements } from './mysql-statements';
import { pgTypeParsers } from './pg-types';

/**
 * mysql2 with what every pooled session needs set first: GROUP_CONCAT's bound
 * (group_concat_max_len) raised to its largest, and the statement time limit, if any.
 */
function mysqlSessions(ms: number): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mysql2 = require('mysql2');
  const statements = [...MYSQL_SESSION, ...(ms ? timeoutStatements('mysql', ms) : [])];
  return {
    ...mysql2,
    createPool(config: object) {
      // A statement without values as it is: mysql2 scans every text for placeholders, all of a
      // multi-row INSERT whose rows are literals (mysql-literals.ts: 2 MB, ~6 ms a bulk create).
      // Values are written as mysql2 writes them (the connection's timezone, objects as mysql2 does).
      const queryFormat = (text: string, values: unknown[] | undefined, timezone: string) => (values?.length ? mysql2.format(text, values, false, timezone) : text);
      const pool = mysql2.createPool({ ...config, queryFormat });
      // Queued on the new connection before the statement it was opened for.
      pool.on('connection', (conn: { query: (sql: string, cb: (err: unknown) => void) => void }) => {
        for (const stmt of statements) conn.query(stmt, () => undefined);
      });
      return pool;
    },
  };
}

/**
 * A detail's id lists and ancestry are GROUP_CONCATs (dialect.listAgg), whose result is cut at
 * group_concat_max_len bytes with only a warning: MySQL 8's default is 1,024 (27 uuids, or one
 * ancestor with a long name in hex), MariaDB's 1 MB. Raised for every session (MariaDB takes it
 * as its largest, 1 GB), the result is bounded by max_allowed_packet instead (16 MB on MariaDB,
 * 64 MB on MySQL 8: ~400,000 ids in one list). JSON_ARRAYAGG is no way round it: MySQL's takes no
 * ORDER BY, and MariaDB's is a GROUP_CONCAT under the same bound.
 *
 * sql_mode without NO_BACKSLASH_ESCAPES (a server may set it globally): string literals are written
 * with backslash escapes, by mysql2 for every statement's values and by netkeel for a multi-row
 * INSERT's rows (mysql-literals.ts); under that mode a backslash would be taken as itself.
 *
 * eq_range_index_dive_limit = 0: the optimizer looks an `IN (...)` list's values up in the index
 * however many there are. Past 200 (the default) it guessed from the index's statistics instead,
 * and a column that is mostly NULL (nat_inside, a page's reverse references) counts as one value
 * on every row: a page of 1,000 addresses read all 100,000 rows of the table (60 ms) to find its
 * NAT references, where the look-ups take 3-10 ms.
 *
 * subquery_cache=off (MariaDB): MariaDB keeps each correlated subquery's results by the outer
 * row's values in a temporary table made for the statement, which a statement of one row (a
 * detail's counts and id lists: a subquery each) pays for and never uses: ~15 µs of MariaDB's
 * CPU per subquery, a location detail's 340 -> 210-270 µs alone. A page's counts are grouped
 * joins (page-extras.ts); its id lists are subqueries of each row on MariaDB, whose outer values
 * (the rows' ids) never repeat, so the cache never hit there either.
 */
export const MYSQL_SESSION = [
  'SET SESSION group_concat_max_len = 4294967295',
  // MariaDB alone reads what is in /*M! ... */; MySQL has no subquery cache (and takes it for a comment).
  "SET SESSION eq_range_index_dive_limit = 0 /*M! , optimizer_switch = 'subquery_cache=off' */",
  "SET SESSION sql_mode = TRIM(BOTH ',' FROM REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))",
];

/** Prepared statements each pooled MySQL/MariaDB connection keeps (as many as a PostgreSQL one). */
export const MYSQL_PREPARED_PER_CONNECTION = 100;

/** Statements that set the session's statement time limit (0 = none; migrations may run long). */
export function timeoutStatements(dialect: 'postgres' | 'mysql', ms: number): string[] {
  const n = Math.max(0, Math.round(ms));
  return dialect === 'postgres' ? [`SET statement_timeout = ${n}`] : [`SET SESSION max_statement_time = ${n / 1000}`, `SET SESSION max_execution_time = ${n}`];
}

export interface DatabaseTarget {
  kind: 'pglite' | 'postgres' | 'mysql';
  /** postgres:// or mysql:// URL (postgres, mysql). */
  url?: string;
  /** PGlite data directory; 'memory://' for an in-memory database. */
  dataDir?: string;
  /** PGlite: start from a dumped data directory (tests load a migrated template). */
  loadDataDir?: Blob;
  /** PGlite: its page cache (shared_buffers), in MB (default PostgreSQL's 128). */
  sharedBuffersMb?: number;
  /**
   * PGlite: the schema snapshot a new data directory starts from (./pglite/snapshot.ts); the
   * build's (dist/pglite-snapshot) when undefined, none when null.
   */
  snapshotDir?: string | null;
  /** Upper bound on one statement, in ms (0 = none). */
  statementTimeoutMs?: number;
  /** Run statements outside transactions as prepared statements (default true). */
  preparedStatements?: boolean;
  /** A server not reachable at start is tried again for this long, in ms (0 = once). */
  connectTimeoutMs?: number;
}

export interface OpenDatabase {
  dataSource: DataSource;
  dialect: Dialect;
  /** The embedded instance, when the database is PGlite. */
  pglite?: PGlite;
  /** The statement time limit every pooled session carries (0 = none). */
  statementTimeoutMs: number;
  /**
   * How statements run: on PostgreSQL and PGlite, outside transactions, as prepared statements
   * (PreparedStatements; none with PREPARED_STATEMENTS=false); on MySQL and MariaDB straight on
   * mysql2's connection (MysqlStatements), prepared unless PREPARED_STATEMENTS=false.
   */
  prepared?: PreparedStatements | MysqlStatements;
  close(): Promise<void>;
}

export interface OpenOptions {
  migrations: { postgres: Function[]; mysql: Function[] };
}

/** PGlite's node-postgres connection: pg's wire messages handed to the PGlite session. */
function pgliteConnection(db: PGlite): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createPgConfig } = require('@electric-sql/pglite/node-postgres') as { createPgConfig(db: PGlite): { connection: unknown } };
  return createPgConfig(db).connection;
}

/** A new data directory's content: the build's schema snapshot (a gzipped tarball) if it fits these migrations (else initdb and every migration). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
function fromSnapshot(target: DatabaseTarget, migrations: Function[]): Buffer | undefined {
  if (target.snapshotDir === null) return undefined;
  const dir = target.snapshotDir ?? DEFAULT_SNAPSHOT_DIR;
  const verdict = readSnapshot(dir, migrations);
  const log = new Logger('Database');
  if (verdict.state === 'absent') return undefined;
  if (verdict.state === 'stale') {
    log.warn(`The schema snapshot in ${dir} is not used: ${verdict.why}. Creating the database and running every migration instead (\`npm run build\` makes a new snapshot).`);
    return undefined;
  }
  log.log(`Creating the database from the schema snapshot (${verdict.migrations.length} migrations applied)`);
  return verdict.tarball;
}

/**
 * Opens a TypeORM DataSource for one of the three supported databases. PGlite is served
 * through the postgres driver with node-postgres's client over its one session (a pool of one),
 * so the rest of netkeel treats it exactly like PostgreSQL.
 */
export async function openDatabase(target: DatabaseTarget, opts: OpenOptions): Promise<OpenDatabase> {
  const common = {
    // No entities: the engine writes its own SQL; the schema comes from the migrations.
    entities: [],
    synchronize: false,
    migrationsRun: false,
    migrationsTransactionMode: 'each' as const,
    namingStrategy: new SnakeNamingStrategy(),
    logging: false,
  };
  let unlock: (() => void) | undefined;
  let pglite: PGlite | undefined;
  let options: DataSourceOptions;
  let dialect: Dialect;

  if (target.kind === 'mysql') {
    dialect = mysqlDialect;
    options = {
      ...common,
      type: 'mysql',
      url: target.url,
      migrations: opts.migrations.mysql,
      timezone: 'Z',
      // READ COMMITTED as on PostgreSQL: a statement that follows a lock sees what was committed
      // before the lock was granted (InnoDB's REPEATABLE READ would keep the first read's snapshot).
      isolationLevel: 'READ COMMITTED',
      // Not the tables' utf8mb4_bin: with the column's collation, MariaDB turns an `IN (...)` list
      // of 1,000 values into a join on a table of them, and then plans a full scan of the other
      // side (a page of prefixes' utilization read 400,000 rows, 0.6 s, instead of 2,400).
      charset: 'utf8mb4',
      supportBigNumbers: true,
      bigNumberStrings: false,
      dateStrings: false,
      poolSize: 10,
      // mysql2 captures a stack trace at every statement's call site by default, for its errors'
      // stacks: a cost per statement (~1 % of a busy server's CPU) for stacks nobody reads (the
      // database's errors are mapped to API answers).
      trace: false,
      driver: mysqlSessions(target.statementTimeoutMs ?? 0),
      // Prepared statements kept per connection (MysqlStatements), the least recently used closed
      // first: mysql2 keeps 16,000 by default, and the server at most max_prepared_stmt_count
      // (16,382) for all its sessions together.
      extra: { maxPreparedStatements: MYSQL_PREPARED_PER_CONNECTION },
    };
  } else {
    dialect = postgresDialect;
    const base = {
      ...common,
      type: 'postgres' as const,
      migrations: opts.migrations.postgres,
      parseInt8: true,
      installExtensions: false,
    };
    if (target.kind === 'postgres') {
      options = {
        ...base,
        url: target.url,
        poolSize: 10,
        extra: { types: pgTypeParsers, ...(target.statementTimeoutMs ? { statement_timeout: target.statementTimeoutMs } : {}) },
      };
    } else {
      const dir = target.dataDir ?? './data';
      const inMemory = dir.startsWith('memory://');
      if (!inMemory) unlock = await lockDataDir(dir, { log: (m) => new Logger('Database').warn(m) });
      try {
        let loadDataDir = target.loadDataDir;
        if (!loadDataDir && (inMemory || !existsSync(join(dir, 'PG_VERSION')))) {
          const snapshot = fromSnapshot(target, opts.migrations.postgres);
          if (snapshot && inMemory) loadDataDir = new Blob([snapshot], { type: 'application/x-gzip' });
          else if (snapshot) unpackSnapshot(snapshot, dir);
        }
        // Loaded only for PGlite: a server-backed process does not hold its module.
        const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
        const startParams = target.sharedBuffersMb ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${target.sharedBuffersMb}MB`] : undefined;
        pglite = await PGlite.create(inMemory ? undefined : dir, { ...(loadDataDir ? { loadDataDir } : {}), ...(startParams ? { startParams } : {}) });
      } catch (err) {
        unlock?.();
        throw err;
      }
      options = {
        ...base,
        // node-postgres's own client over PGlite's one session (PGlite's node-postgres connection):
        // the same driver, type parsers and prepared statements as on a PostgreSQL server. PGlite
        // has exactly one session: if every TypeORM connection used it at once, their transactions
        // would interleave and one request's COMMIT could make another's rolled-back writes
        // permanent. So the pool holds one client, kept while idle: a transaction holds it from
        // BEGIN to COMMIT or ROLLBACK and everybody else queues (real isolation).
        poolSize: 1,
        extra: { types: pgTypeParsers, connection: pgliteConnection(pglite), max: 1, idleTimeoutMillis: 0 },
      };
    }
  }

  const dataSource = new DataSource(options);
  try {
    await dataSource.initialize();
  } catch (err) {
    await pglite?.close().catch(() => undefined);
    unlock?.();
    throw err;
  }
  return {
    dataSource,
    dialect,
    pglite,
    statementTimeoutMs: target.statementTimeoutMs ?? 0,
    // Planning a page's statement costs more than running it (PGlite: a detail 13 ms planned
    // each time, 2.5 ms prepared), on PGlite as on a server.
    prepared:
      target.kind === 'mysql' ? new MysqlStatements(target.preparedStatements !== false) : target.preparedStatements !== false ? new PreparedStatements() : undefined,
    async close() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await pglite?.close();
      unlock?.();
    },
  };
}
