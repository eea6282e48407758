import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, MigrationExecutor } from 'typeorm';
import { mysqlMigrations } from '../../migrations/mysql';
import { postgresMigrations } from '../../migrations/postgres';
import { DatabaseTarget, openDatabase, OpenDatabase, timeoutStatements } from './data-source.factory';
import { ChangeFeed } from './change-feed';
import { describeTarget, openWithRetry } from './connect';
import { Db } from './db';

const OPEN_DATABASE = Symbol('OPEN_DATABASE');

/**
 * Applies pending migrations on a session without the statement time limit, holding the
 * database's migration lock: an instance starting beside another that is migrating waits, then
 * finds nothing (or only what is left) to apply.
 */
async function migrate(open: OpenDatabase) {
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
    return await executor.executePendingMigrations();
  } finally {
    if (locked) await qr.query(open.dialect.migrationLock.release).catch(() => undefined);
    // The session goes back to the pool: with the limit every other session has.
    await setTimeout(open.statementTimeoutMs);
    await qr.release();
  }
}

/**
 * Opens the database, applies the committed migrations (never `synchronize`) and provides the
 * `Db` gateway.
 */
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    @Inject(OPEN_DATABASE) private readonly open: OpenDatabase,
    private readonly feed: ChangeFeed,
  ) {}

  /** `plugins`: the loaded plugins' migrations, applied with netkeel's (each set sorted by its timestamps). */
  static forRoot(target: DatabaseTarget, plugins: { postgres: Function[]; mysql: Function[] } = { postgres: [], mysql: [] }): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: OPEN_DATABASE,
          useFactory: async () => {
            const logger = new Logger('Database');
            const open = await openWithRetry(target, () => openDatabase(target, { migrations: { postgres: [...postgresMigrations, ...plugins.postgres], mysql: [...mysqlMigrations, ...plugins.mysql] } }), target.connectTimeoutMs ?? 0, logger);
            const [{ v }] = await open.dataSource.query('SELECT VERSION() AS v');
            logger.log(`Using ${describeTarget(target)}: ${String(v).split(' on ')[0].split(',')[0]}`);
            const applied = await migrate(open);
            if (applied.length) logger.log(`Applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`);
            return open;
          },
        },
        { provide: DataSource, inject: [OPEN_DATABASE], useFactory: (o: OpenDatabase) => o.dataSource },
        {
          provide: ChangeFeed,
          inject: [OPEN_DATABASE],
          useFactory: (o: OpenDatabase) =>
            o.pglite
              ? new ChangeFeed('local')
              : target.kind === 'postgres' && target.url
                ? new ChangeFeed('notify', { url: target.url, dataSource: o.dataSource })
                : new ChangeFeed('none'),
        },
        {
          provide: Db,
          inject: [OPEN_DATABASE, ChangeFeed],
          useFactory: (o: OpenDatabase, feed: ChangeFeed) => new Db(o.dataSource, o.dialect, o.prepared, feed),
        },
      ],
      exports: [Db, DataSource],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.feed.close();
    await this.open.close();
  }
}
