import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { dropDatabase, dropRunDatabases, MysqlTemplate } from '../../src/database/test-servers';

/** Runs once after all suites: removes the PGlite template and its copies drops the PostgreSQL and MariaDB template databases of the global setup, and any database of the run a suite left (dropRunDatabases). */
export default async function globalTeardown(): Promise<void> {
  const pglite = process.env.NETKEEL_PGLITE_TEMPLATE;
  // The template's folder holds the suites' copies too (any a suite left behind).
  if (pglite) rmSync(dirname(pglite), { recursive: true, force: true });
  const postgres = process.env.NETKEEL_POSTGRES_TEMPLATE;
  if (postgres) await dropDatabase('postgres', postgres);
  const file = process.env.NETKEEL_MYSQL_TEMPLATE;
  if (file) {
    const template = JSON.parse(readFileSync(file, 'utf8')) as MysqlTemplate;
    await dropDatabase('mysql', template.name);
    rmSync(file, { force: true });
  }
  await dropRunDatabases();
}
