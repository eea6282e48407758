import { Client } from 'pg';
import { createConnection } from 'mysql2/promise';

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

/** Runs one administrative statement on a test server, on a connection of its own. */
async function onServer(kind: 'postgres' | 'mysql', statement: string): Promise<void> {
  if (kind === 'postgres') {
    const c = new Client({ connectionString: process.env.TEST_POSTGRES_URL! });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
    return;
  }
  const c = await createConnection({ uri: process.env.TEST_MYSQL_URL! });
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

/** Creates a fresh, uniquely named database on a server and returns its URL and a drop function. */
export async function freshDatabase(kind: 'postgres' | 'mysql'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `nk_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const pg = kind === 'postgres';
  await onServer(kind, pg ? `CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'` : `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  const url = new URL(pg ? process.env.TEST_POSTGRES_URL! : process.env.TEST_MYSQL_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(kind, pg ? `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)` : `DROP DATABASE IF EXISTS \`${name}\``),
  };
}
