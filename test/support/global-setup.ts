import { accessSync, constants, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/database/data-source.factory';
import { allMigrations, ownedMigrations } from '../../src/database/migrations';
import { checkServers, freshDatabase, readMysqlTemplate, testDatabases } from '../../src/database/test-servers';

const MIGRATIONS = allMigrations(ownedMigrations());

/**
 * Runs once before all suites: builds a migrated PGlite data directory that every suite copies
 * (instead of running initdb and the migrations again), checks the database servers, and on
 * PostgreSQL and MariaDB migrates a template database that every suite's database is copied
 * (PostgreSQL: CREATE DATABASE ... TEMPLATE) or cloned from (src/database/test-servers.ts:
 * MariaDB has no such copy); replaying the migrations was most of a suite's start there. The
 * global teardown drops them and removes the PGlite template and its copies.
 */
export default async function globalSetup(): Promise<void> {
  await checkServers();
  // The three templates are independent, and two of them are mostly the database server's work:
  // made side by side, the setup takes the longest of them rather than their sum.
  await Promise.all([pgliteTemplate(), postgresTemplate(), mysqlTemplate()]);
}

/**
 * The PGlite template is a data directory: a suite's copy of it opens in a fraction of the time a
 * dumped one takes to unpack into memory. It and the suites' copies (65 MB and ~2,000 files each)
 * are kept in memory where the machine has a tmpfs (/dev/shm): a copy on this machine's disk took
 * 4-10 s under the suite's load, 0.5-0.9 s there; PGlite's files are read and written the same way.
 */
async function pgliteTemplate(): Promise<void> {
  const root = mkdtempSync(join(inMemoryDir() ?? tmpdir(), `netkeel-pglite-${process.pid}-`));
  const template = join(root, 'template');
  const db = await openDatabase({ kind: 'pglite', dataDir: template }, { migrations: MIGRATIONS });
  await db.dataSource.runMigrations({ transaction: 'each' });
  await db.close();
  process.env.NETKEEL_PGLITE_TEMPLATE = template;
}

/** /dev/shm where it is a directory this process may write in. */
function inMemoryDir(): string | undefined {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return statSync('/dev/shm').isDirectory() ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}

/** Every suite's PostgreSQL database is a copy of this one (CREATE DATABASE ... TEMPLATE). */
async function postgresTemplate(): Promise<void> {
  if (!testDatabases().includes('postgres')) return;
  const fresh = await migratedServerDatabase('postgres');
  process.env.NETKEEL_POSTGRES_TEMPLATE = decodeURIComponent(new URL(fresh.url).pathname.slice(1));
}

/** Every suite's MariaDB database is cloned from this one's tables (readMysqlTemplate). */
async function mysqlTemplate(): Promise<void> {
  if (!testDatabases().includes('mysql')) return;
  const fresh = await migratedServerDatabase('mysql');
  const template = await readMysqlTemplate(fresh.url);
  const out = join(tmpdir(), `netkeel-mysql-template-${process.pid}.json`);
  writeFileSync(out, JSON.stringify(template));
  process.env.NETKEEL_MYSQL_TEMPLATE = out;
}

/** A fresh database on a server with every committed migration applied (a template of the run). */
async function migratedServerDatabase(kind: 'postgres' | 'mysql'): Promise<{ url: string }> {
  const fresh = await freshDatabase(kind);
  const db = await openDatabase({ kind, url: fresh.url }, { migrations: MIGRATIONS });
  try {
    await db.dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await db.close();
  }
  return fresh;
}
