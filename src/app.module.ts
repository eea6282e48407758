import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { databaseKind, Settings } from './config/settings';
import { Clock, SettingsModule } from './config/settings.module';
import { AuthGuard } from './core/auth/auth.guard';
import { CoreModule } from './core/core.module';
import { ApiExceptionFilter } from './core/http/exception.filter';
import { RegistryModule } from './core/resource/registry.module';
import { DatabaseModule } from './database/database.module';
import type { DatabaseTarget } from './database/data-source.factory';
import { DcimModule, dcimEntities, dcimResources } from './modules/dcim/dcim.module';
import { ExtrasModule, extrasEntities, extrasResources } from './modules/extras/extras.module';
import { IpamModule, ipamEntities, ipamResources } from './modules/ipam/ipam.module';
import { IdentityModule, identityEntities, identityResources } from './modules/identity/identity.module';
import { TenancyModule, tenancyEntities, tenancyResources } from './modules/tenancy/tenancy.module';
import { UsersModule, usersEntities, usersResources } from './modules/users/users.module';

/** Every model of netkeel: one line per app. */
export const ALL_RESOURCES = [...extrasResources, ...tenancyResources, ...dcimResources, ...ipamResources, ...usersResources, ...identityResources];
export const ALL_ENTITIES = [...extrasEntities, ...tenancyEntities, ...dcimEntities, ...ipamEntities, ...usersEntities, ...identityEntities];

export interface AppOptions {
  settings: Settings;
  /** Overrides the database chosen by the settings (tests load a migrated PGlite template). */
  database?: DatabaseTarget;
  clock?: Clock;
}

export function databaseTarget(settings: Settings): DatabaseTarget {
  const kind = databaseKind(settings);
  return kind === 'pglite'
    ? { kind, dataDir: settings.DATA_DIR }
    : { kind, url: settings.DATABASE_URL!.replace(/^mariadb:/, 'mysql:'), statementTimeoutMs: settings.STATEMENT_TIMEOUT_MS, preparedStatements: settings.PREPARED_STATEMENTS };
}

@Module({})
export class AppModule {
  static forRoot(opts: AppOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        SettingsModule.forRoot(opts.settings, opts.clock),
        RegistryModule.forRoot(ALL_RESOURCES),
        DatabaseModule.forRoot(opts.database ?? databaseTarget(opts.settings), ALL_ENTITIES),
        CoreModule,
        UsersModule,
        ExtrasModule,
        TenancyModule,
        DcimModule,
        IpamModule,
        IdentityModule,
      ],
      // The global enhancers, registered once (DESIGN.md).
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
      ],
    };
  }
}
