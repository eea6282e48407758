import { Client } from 'pg';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Connection, createConnection } from 'mysql2/promise';

export type Kind = 'pglite' | 'postgres' | 'mysql';

/** The databases this run covers: PGlite always, the servers whose URLs are given. */
export function testDatabases(): Kind[] {
  const kinds: Kind[] = ['pglite'];
  if (process.env.TEST_POSTGRES_URL) kinds.push('postgres');
  if (process.env.TEST_MYSQL_URL) kinds.push('mysql');
  const only = process.env.TEST_DATABASES?.split(',').map((s) => s.trim());
  return only ? kinds.filter((k) => only.includes(k)) : kinds;
}

/** Under CI=true both servers are required: a missing URL or an unreachable server fails the run. */
export async function checkServers(): Promise<void> {
  const ci = process.env.CI === 'true';
  const pgUrl = process.env.TEST_POSTGRES_URL;
  const myUrl = process.env.TEST_MYSQL_URL;
  if (ci && (!pgUrl || !myUrl)) throw new Error('CI=true requires TEST_POSTGRES_URL and TEST_MYSQL_URL');
  if (pgUrl) {
    const c = new Client({ connectionString: pgUrl, connectionTimeoutMillis: 5000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
    } catch (e) {
      throw new Error(`PostgreSQL at TEST_POSTGRES_URL is unreachable: ${(e as Error).message}`);
    } finally {
      await c.end().catch(() => undefined);
    }
  }
  if (myUrl) {
    try {
      const c = await createConnection({ uri: myUrl, connectTimeout: 5000 });
      await c.query('SELECT 1');
      await c.end();
    } catch (e) {
      throw new Error(`MySQL/MariaDB at TEST_MYSQL_URL is unreachable: ${(e as Error).message}`);
    }
  }
}

/** Runs administrative statements on a test server, in turn, on a connection of its own. */
async function onServer(kind: 'postgres' | 'mysql', ...statements: string[]): Promise<void> {
  if (kind === 'postgres') {
    const c = new Client({ connectionString: process.env.TEST_POSTGRES_URL! });
    await c.connect();
    try {
      for (const s of statements) await c.query(s);
    } finally {
      await c.end();
    }
    return;
  }
  const c = await createConnection({ uri: process.env.TEST_MYSQL_URL! });
  try {
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

/**
 * Creates a fresh, uniquely named database on a server and returns its URL and a drop function.
 * `copyOf` (PostgreSQL): a database to copy (CREATE DATABASE ... TEMPLATE), which nobody may be
 * connected to meanwhile.
 */
export async function freshDatabase(kind: 'postgres' | 'mysql', copyOf?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `nk_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const pg = kind === 'postgres';
  await onServer(
    kind,
    ...(pg
      ? [
          `CREATE DATABASE "${name}" TEMPLATE ${copyOf ? `"${copyOf}"` : `template0 ENCODING 'UTF8'`}`,
          // A test database is thrown away: a commit need not wait for the disk (3-4 ms a commit
          // on this machine's disk, against ~1 ms without), and what clients see is the same.
          // The setting is this database's alone (the server's other databases keep theirs).
          `ALTER DATABASE "${name}" SET synchronous_commit = off`,
        ]
      : [`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`]),
  );
  const url = new URL(pg ? process.env.TEST_POSTGRES_URL! : process.env.TEST_MYSQL_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(kind, pg ? `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)` : `DROP DATABASE IF EXISTS \`${name}\``),
  };
}

/**
 * A migrated MariaDB database that fresh ones are cloned from: its name, the statements that
 * make its tables again (SHOW CREATE TABLE: columns, keys and foreign keys in one statement
 * each) and the tables that hold rows (the migrations' own and what they seed). MariaDB has no
 * CREATE DATABASE ... TEMPLATE; replaying its migrations costs a test server start most of its
 * time (ALTER after ALTER), these statements a fraction of it.
 */
export interface MysqlTemplate {
  name: string;
  tables: string[];
  filled: string[];
  /** CREATE TRIGGER statements (the change counts of watched tables), made after the rows are copied. */
  triggers: string[];
}

/** Reads a migrated MariaDB database (the global setup's, once per run) as a template. */
export async function readMysqlTemplate(url: string): Promise<MysqlTemplate> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const c = await createConnection({ uri: url });
  try {
    const [rows] = await c.query(`SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`, [name]);
    const tables: string[] = [];
    const filled: string[] = [];
    for (const { t } of rows as { t: string }[]) {
      const [[create]] = (await c.query(`SHOW CREATE TABLE \`${t}\``)) as unknown as [Record<string, string>[]];
      tables.push(create['Create Table']);
      const [[{ n }]] = (await c.query(`SELECT COUNT(*) AS n FROM \`${t}\``)) as unknown as [{ n: number }[]];
      if (Number(n) > 0) filled.push(t);
    }
    const [trs] = await c.query(
      `SELECT TRIGGER_NAME AS n, ACTION_TIMING AS timing, EVENT_MANIPULATION AS e, EVENT_OBJECT_TABLE AS t, ACTION_STATEMENT AS body
       FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? ORDER BY EVENT_OBJECT_TABLE, ACTION_ORDER`,
      [name],
    );
    const triggers = (trs as Record<string, string>[]).map((r) => `CREATE TRIGGER \`${r.n}\` ${r.timing} ${r.e} ON \`${r.t}\` FOR EACH ROW ${r.body}`);
    return { name, tables, filled, triggers };
  } finally {
    await c.end();
  }
}

/**
 * A fresh database on a server with the committed migrations applied, where the run has a
 * template (the global setup's): on PostgreSQL a copy of the migrated database named `template`
 * (a fraction of a second, against seconds for replaying the migrations), on MariaDB a clone of
 * the MysqlTemplate. Without one the database is empty and the app migrates it.
 */
export async function migratedDatabase(kind: 'postgres' | 'mysql', template?: MysqlTemplate | string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (typeof template === 'string') return freshDatabase(kind, template);
  const fresh = await freshDatabase(kind);
  if (kind !== 'mysql' || !template) return fresh;
  // MariaDB makes a file per table, and waits for the disk at each: the tables are made over
  // CLONE_CONNECTIONS connections at once (a clone of ~180 tables took 7.4-8.5 s on one, 2.4-3.0 s
  // on four, on this machine under the suite's load). Foreign keys may name tables not made yet.
  const slices = Array.from({ length: CLONE_CONNECTIONS }, (_, i) => template.tables.filter((_, j) => j % CLONE_CONNECTIONS === i));
  const copy = template.filled.map((t) => `INSERT INTO \`${t}\` SELECT * FROM \`${template.name}\`.\`${t}\``);
  try {
    await Promise.all(slices.map((tables) => onDatabase(fresh.url, ['SET FOREIGN_KEY_CHECKS = 0', ...tables])));
    if (copy.length) await onDatabase(fresh.url, ['SET FOREIGN_KEY_CHECKS = 0', ...copy]);
    if (template.triggers.length) await onDatabase(fresh.url, template.triggers);
  } catch (err) {
    await fresh.drop();
    throw err;
  }
  return fresh;
}

/** How many connections clone a MariaDB template's tables (migratedDatabase). */
const CLONE_CONNECTIONS = 4;

/** Runs statements on a MariaDB database, as one multi-statement request on a connection of its own. */
async function onDatabase(url: string, statements: string[]): Promise<void> {
  const c = await createConnection({ uri: url, multipleStatements: true });
  try {
    await c.query(statements.join(';\n'));
  } finally {
    await c.end();
  }
}

/**
 * Drops every database this run made on the test servers (their names start with `nk_<pid>_`,
 * the pid of jest's process, which its worker threads share): the suites' databases are dropped
 * in the background (testDatabase), and the last ones may still be there when the run ends.
 */
export async function dropRunDatabases(): Promise<void> {
  const prefix = `nk_${process.pid}_`;
  if (process.env.TEST_POSTGRES_URL) {
    const c = new Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await c.connect();
    try {
      const { rows } = await c.query<{ name: string }>(`SELECT datname AS name FROM pg_database WHERE starts_with(datname, $1)`, [prefix]);
      for (const { name } of rows) await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await c.end();
    }
  }
  if (process.env.TEST_MYSQL_URL) {
    const c = await createConnection({ uri: process.env.TEST_MYSQL_URL });
    try {
      const [rows] = (await c.query(`SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE LEFT(SCHEMA_NAME, ?) = ?`, [prefix.length, prefix])) as unknown as [{ name: string }[]];
      for (const { name } of rows) await dropMysqlDatabase(c, name);
    } finally {
      await c.end();
    }
  }
}

/** Drops a template database (the global teardown). */
export async function dropDatabase(kind: 'postgres' | 'mysql', name: string): Promise<void> {
  if (kind === 'postgres') return onServer(kind, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  const c = await createConnection({ uri: process.env.TEST_MYSQL_URL! });
  try {
    await dropMysqlDatabase(c, name);
  } finally {
    await c.end();
  }
}

/** MariaDB's error when it has dropped a database's tables but cannot remove its directory (ER_DB_DROP_RMDIR). */
const DROP_RMDIR = 1010;

/**
 * Drops a MariaDB database at the end of a run. The server removes the tables it knows of and
 * then the database's directory; a file it does not know of left in that directory (CI saw
 * "can't rmdir ..., errno: 39 Directory not empty" once, on a run whose suites had all passed)
 * keeps the directory and fails the statement. That is the test server's leftover, not a result
 * of the run: it is tried once more a second later, then reported with the files the server left
 * (when this process can read the server's data directory) instead of failing the run.
 */
async function dropMysqlDatabase(c: Connection, name: string): Promise<void> {
  /** Drops it: undefined when done, the error when only the directory stayed; any other error is thrown. */
  const drop = async (): Promise<Error | undefined> => {
    try {
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      return undefined;
    } catch (err) {
      if ((err as { errno?: number }).errno !== DROP_RMDIR) throw err;
      return err as Error;
    }
  };
  if (!(await drop())) return;
  await new Promise((r) => setTimeout(r, 1000));
  const err = await drop();
  if (!err) return;
  const [[{ dir }]] = (await c.query('SELECT @@datadir AS dir')) as unknown as [{ dir: string }[]];
  let left: string;
  try {
    left = readdirSync(join(dir, name)).join(', ');
  } catch (e) {
    left = `not readable here (${(e as Error).message})`;
  }
  console.warn(`netkeel tests: MariaDB could not drop the test database ${name}: ${err.message}; files left: ${left}`);
}
