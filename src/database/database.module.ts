import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DatabaseTarget, OpenDatabase } from './data-source.factory';
import { ChangeFeed } from './change-feed';
import { poolDatabase } from './change-poll';
import { connectDatabase, describeTarget } from './connect';
import { allMigrations, applyMigrations, MigrationSets, ownedMigrations } from './migrations';
import { Db } from './db';

const OPEN_DATABASE = Symbol('OPEN_DATABASE');

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
  static forRoot(target: DatabaseTarget, plugins: { package: string; migrations: MigrationSets }[] = []): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: OPEN_DATABASE,
          useFactory: async () => {
            const logger = new Logger('Database');
            const { open, version } = await connectDatabase(target, allMigrations(ownedMigrations(plugins)), logger);
            logger.log(`Using ${describeTarget(target)}: ${version}`);
            const applied = await applyMigrations(open);
            if (applied.length) logger.log(`Applied ${applied.length} migration(s): ${applied.join(', ')}`);
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
                : new ChangeFeed('poll', undefined, poolDatabase(o.dataSource)),
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
