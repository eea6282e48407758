import { Controller, Get, Header, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ResourceRoute } from '../../../core/auth/decorators';
import { ContextFactory } from '../../../core/http/context.factory';
import type { NkRequest } from '../../../core/http/request';
import { NON_FILTER_PARAMS } from '../../../core/resource/query/filter-compiler';
import { toQuery } from '../../../core/resource/query/params';
import { ResourceService } from '../../../core/resource/resource.service';
import { dynamicGroupResource } from './group.resource';

/**
 * `GET /api/extras/dynamic-groups/<id>/members/`: the objects the group holds now, as the
 * content type's own list shows them (paginated; `depth`, `include`, `exclude_m2m`, `sort` as
 * there), within the requester's view of that model: the list of the content type filtered by
 * `dynamic_groups=<id>` (groups/extension.ts), so one page is one list statement whatever the
 * depth of the group. Needs `extras.view_dynamicgroup` and the group in view (404 otherwise).
 * Other query parameters are ignored, as the reference's action ignores them.
 */
@ApiTags('extras')
@ApiParam({ name: 'id', description: 'The dynamic group (UUID or natural key)' })
@Controller('api/extras/dynamic-groups/:id/members')
export class DynamicGroupMembersController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly resources: ResourceService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the member objects of this dynamic group.' })
  @Header('Allow', 'GET, HEAD, OPTIONS')
  @ResourceRoute(dynamicGroupResource, 'view')
  async members(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const group = await this.resources.findOne(ctx, ctx.db, dynamicGroupResource, String(req.params.id), 'view');
    const def = ctx.registry.get(String(group.content_type));
    if (!def) return { count: 0, next: null, previous: null, results: [] };
    const q = new Map([...toQuery(req.query)].filter(([k]) => NON_FILTER_PARAMS.has(k) && k !== 'format'));
    q.set('dynamic_groups', [String(group.id)]);
    return this.resources.list(ctx, def, q, req.path);
  }
}
