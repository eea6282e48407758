import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/database/data-source.factory';
import { postgresMigrations } from '../../migrations/postgres';
import { mysqlMigrations } from '../../migrations/mysql';
import { checkServers } from '../../src/database/test-servers';

/**
 * Runs once before all suites: builds a migrated PGlite data directory that every suite loads
 * (instead of running initdb and the migrations again), and checks the database servers.
 * global-teardown.ts removes the file.
 */
export default async function globalSetup(): Promise<void> {
  await checkServers();
  const db = await openDatabase({ kind: 'pglite', dataDir: 'memory://' }, { migrations: { postgres: postgresMigrations, mysql: mysqlMigrations } });
  await db.dataSource.runMigrations({ transaction: 'each' });
  const dump = await dumpPGlite(db);
  const file = join(tmpdir(), `netkeel-pglite-template-${process.pid}.tar`);
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  process.env.NETKEEL_PGLITE_TEMPLATE = file;
  await db.close();
}

async function dumpPGlite(db: Awaited<ReturnType<typeof openDatabase>>): Promise<Blob> {
  const instance = db.pglite;
  if (!instance) throw new Error('not a PGlite database');
  return instance.dumpDataDir('none');
}
