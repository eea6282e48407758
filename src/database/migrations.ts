import { MigrationExecutor } from 'typeorm';
import { mysqlMigrations } from '../../migrations/mysql';
import { postgresMigrations } from '../../migrations/postgres';
import { timeoutStatements, type OpenDatabase } from './data-source.factory';

/** Migration classes, one set per dialect (PGlite uses the PostgreSQL set). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export interface MigrationSets { postgres: Function[]; mysql: Function[] }

/** Whose migrations these are: netkeel's own, or a plugin's (its package name). */
export interface MigrationOwner {
  owner: string;
  migrations: MigrationSets;
}

/** netkeel's committed migrations followed by the plugins' (each dialect's set runs in timestamp order). */
export function ownedMigrations(plugins: { package: string; migrations: MigrationSets }[] = []): MigrationOwner[] {
  return [{ owner: 'netkeel', migrations: { postgres: postgresMigrations, mysql: mysqlMigrations } }, ...plugins.map((p) => ({ owner: p.package, migrations: p.migrations }))];
}

export function allMigrations(owned: MigrationOwner[]): MigrationSets {
  return { postgres: owned.flatMap((o) => o.migrations.postgres), mysql: owned.flatMap((o) => o.migrations.mysql) };
}

/** A migration's name as TypeORM records it: its `name`, or its class's name. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
function migrationName(cls: Function): string {
  const instance = new (cls as new () => { name?: string })();
  return instance.name ?? cls.name;
}

/**
 * Applies the pending migrations on a session without the statement time limit, holding the
 * database's migration lock (the server's start and `netkeel migrate` alike): an instance starting
 * beside another that is migrating waits, then finds nothing (or only what is left) to apply.
 * Returns their names, in order.
 */
export async function applyMigrations(open: OpenDatabase): Promise<string[]> {
  const qr = open.dataSource.createQueryRunner();
  const setTimeout = async (ms: number) => {
    for (const stmt of timeoutStatements(open.dialect.name, ms)) await qr.query(stmt).catch(() => undefined);
  };
  let locked = false;
  try {
    await setTimeout(0);
    await qr.query(open.dialect.migrationLock.acquire);
    locked = true;
    const executor = new MigrationExecutor(open.dataSource, qr);
    executor.transaction = 'each';
    return (await executor.executePendingMigrations()).map((m) => m.name);
  } finally {
    if (locked) await qr.query(open.dialect.migrationLock.release).catch(() => undefined);
    // The session goes back to the pool: with the limit every other session has.
    await setTimeout(open.statementTimeoutMs);
    await qr.release();
  }
}

/**
 * Each owner's migrations for the open database's dialect, in the order they run, and whether
 * each is applied. Reads only: a database never migrated has every migration pending.
 */
export async function migrationStatus(open: OpenDatabase, owned: MigrationOwner[]): Promise<{ owner: string; migrations: { name: string; applied: boolean }[] }[]> {
  const executed = new Set((await new MigrationExecutor(open.dataSource).getExecutedMigrations()).map((m) => m.name));
  return owned.map((o) => ({
    owner: o.owner,
    migrations: o.migrations[open.dialect.name]
      .map(migrationName)
      .sort((a, b) => Number(a.slice(-13)) - Number(b.slice(-13)))
      .map((name) => ({ name, applied: executed.has(name) })),
  }));
}
