import { Controller, Get, Header, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ResourceRoute } from '../../../core/auth/decorators';
import { ContextFactory } from '../../../core/http/context.factory';
import { wantsCsv } from '../../../core/http/negotiation';
import { CsvService } from '../../../core/resource/csv/csv.service';
import type { NkRequest } from '../../../core/http/request';
import { toQuery } from '../../../core/resource/query/params';
import { ResourceService } from '../../../core/resource/resource.service';
import { externalIdentityResource } from '../resources/external-identity.resource';
import { IdentityHistoryService } from '../services/identity-history.service';

/** What intake changed on one identity, newest first; read-only, for whoever may view the identity. */
@ApiTags('identity')
@ApiParam({ name: 'id', description: 'The external identity (UUID or natural key)' })
@Controller('api/identity/external-identities/:id/history')
export class IdentityHistoryController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly resources: ResourceService,
    private readonly history: IdentityHistoryService,
    private readonly csv: CsvService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'What intake changed on this identity, its roles, its user and groups; newest first, paginated' })
  @Header('Allow', 'GET, HEAD')
  @ResourceRoute(externalIdentityResource, 'view')
  async list(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const identity = await this.resources.findOne(ctx, ctx.db, externalIdentityResource, String(req.params.id), 'view');
    if (wantsCsv(req)) {
      const all = await this.history.list(ctx, String(identity.id), toQuery(req.query), req.path, true);
      return this.csv.plain('externalidentityhistory', ['id', 'time', 'action', 'user', 'user_name', 'changes'], all.results as Record<string, unknown>[]);
    }
    return this.history.list(ctx, String(identity.id), toQuery(req.query), req.path);
  }
}
