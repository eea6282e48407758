import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { databaseKind, Settings } from './config/settings';
import { Clock, SettingsModule } from './config/settings.module';
import { AuthGuard } from './core/auth/auth.guard';
import { CoreModule } from './core/core.module';
import { ApiExceptionFilter } from './core/http/exception.filter';
import { RegistryModule } from './core/resource/registry.module';
import { DatabaseModule } from './database/database.module';
import { loadPlugins } from './core/plugins/loader';
import { PluginsModule } from './core/plugins/plugins.module';
import { eventBrokerClasses, EventsModule } from './core/events/event-brokers';
import { loadEventBrokers } from './core/events/settings';
import type { DatabaseTarget } from './database/data-source.factory';
import { dcimApp } from './modules/dcim/dcim.module';
import { extrasApp } from './modules/extras/extras.module';
import { ipamApp } from './modules/ipam/ipam.module';
import { identityApp } from './modules/identity/identity.module';
import { tenancyApp } from './modules/tenancy/tenancy.module';
import { usersApp } from './modules/users/users.module';
import { circuitsApp } from './modules/circuits/circuits.module';
import { virtualizationApp } from './modules/virtualization/virtualization.module';
import { cloudApp } from './modules/cloud/cloud.module';
import { wirelessApp } from './modules/wireless/wireless.module';

/** The apps of netkeel: one line each. Their models, tables and routes follow from them. */
export const APPS = [extrasApp, tenancyApp, dcimApp, ipamApp, usersApp, identityApp, circuitsApp, virtualizationApp, cloudApp, wirelessApp];

export const ALL_RESOURCES = APPS.flatMap((a) => a.resources);
export const ALL_TABLES = APPS.flatMap((a) => a.tables ?? []);
export const ALL_EXTENSIONS = APPS.flatMap((a) => a.extensions ?? []);

export interface AppOptions {
  settings: Settings;
  /** Overrides the database chosen by the settings (tests load a migrated PGlite template). */
  database?: DatabaseTarget;
  clock?: Clock;
}

export function databaseTarget(settings: Settings): DatabaseTarget {
  const kind = databaseKind(settings);
  return kind === 'pglite'
    ? {
        kind,
        dataDir: settings.DATA_DIR,
        preparedStatements: settings.PREPARED_STATEMENTS,
        sharedBuffersMb: settings.PGLITE_SHARED_BUFFERS_MB,
        snapshotDir: settings.PGLITE_SNAPSHOT_DIR === 'none' ? null : settings.PGLITE_SNAPSHOT_DIR || undefined,
      }
    : {
        kind,
        url: settings.DATABASE_URL!.replace(/^mariadb:/, 'mysql:'),
        statementTimeoutMs: settings.STATEMENT_TIMEOUT_MS,
        preparedStatements: settings.PREPARED_STATEMENTS,
        connectTimeoutMs: settings.DATABASE_CONNECT_TIMEOUT * 1000,
      };
}

@Module({})
export class AppModule {
  static forRoot(opts: AppOptions): DynamicModule {
    // PLUGINS: apps declared like the ones above, loaded at start (docs/plugins.md).
    const plugins = loadPlugins(opts.settings.PLUGINS, APPS.map((a) => a.label));
    const apps = [...APPS, ...plugins.flatMap((p) => p.apps)];
    // EVENT_BROKERS: made now, from netkeel's broker classes and the plugins', so that a bad one stops the start before the database opens.
    const eventBrokers = loadEventBrokers(opts.settings.EVENT_BROKERS, eventBrokerClasses(plugins));
    return {
      module: AppModule,
      imports: [
        SettingsModule.forRoot(opts.settings, opts.clock),
        PluginsModule.forRoot(plugins),
        RegistryModule.forRoot(
          apps.flatMap((a) => a.resources),
          apps.flatMap((a) => a.tables ?? []),
          apps.flatMap((a) => a.extensions ?? []),
          Object.fromEntries(apps.map((a) => [a.label, a.rootLinks ?? []])),
        ),
        DatabaseModule.forRoot(opts.database ?? databaseTarget(opts.settings), plugins),
        CoreModule,
        EventsModule.forRoot(eventBrokers),
        ...apps.map((a) => a.module),
      ],
      // The global enhancers, registered once (DESIGN.md).
      providers: [
        AuthGuard,
        ApiExceptionFilter,
        { provide: APP_GUARD, useExisting: AuthGuard },
        { provide: APP_FILTER, useExisting: ApiExceptionFilter },
      ],
    };
  }
}
