import { Global, Module } from '@nestjs/common';
import { PermissionService } from './auth/permission.service';
import { LoginThrottle } from './auth/login-throttle';
import { RateLimiter } from './auth/rate-limit';
import { SessionService } from './auth/session.service';
import { UserStatusService } from './auth/user-status';
import { ContextFactory } from './http/context.factory';
import { RootController } from './http/root.controller';
import { PluginsController } from './plugins/plugins.controller';
import { LoginController } from './http/login.controller';
import { HealthController } from './http/health.controller';
import { DocsController } from './http/docs.controller';
import { OpenApiDocuments } from './http/openapi';
import { CsvService } from './resource/csv/csv.service';
import { ResourceService } from './resource/resource.service';
import { GraphqlController } from './graphql/graphql.controller';
import { GraphqlService } from './graphql/graphql.service';
import { BrowsableApi } from './http/browsable';

/** The engine's shared services, available to every app module's generated controllers. */
@Global()
@Module({
  // PluginsController and DocsController first: their /api/plugins/, /api/apps/, /api/docs/ ... come before the root's /api/<app>/.
  controllers: [PluginsController, DocsController, GraphqlController, RootController, LoginController, HealthController],
  providers: [OpenApiDocuments, ResourceService, CsvService, GraphqlService, ContextFactory, PermissionService, LoginThrottle, RateLimiter, SessionService, UserStatusService, BrowsableApi],
  exports: [ResourceService, CsvService, GraphqlService, ContextFactory, PermissionService, LoginThrottle, RateLimiter, SessionService, UserStatusService, BrowsableApi],
})
export class CoreModule {}
