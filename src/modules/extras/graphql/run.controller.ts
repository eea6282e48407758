import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ResourceRoute } from '../../../core/auth/decorators';
import { GraphqlService } from '../../../core/graphql/graphql.service';
import { ApiResponse } from '../../../core/http/api-response';
import { ContextFactory } from '../../../core/http/context.factory';
import { NkRequest, parseBody, ValidationError } from '../../../core/http/request';
import { ResourceService } from '../../../core/resource/resource.service';
import { graphqlQueryResource } from './graphql-query.resource';

/**
 * `POST /api/extras/graphql-queries/<id>/run/` with `{"variables": {...}}`: the saved query run as
 * the requester (scoped by their permissions, as `/api/graphql/`), answered as the reference
 * does: `{"data": ...}` (with `errors` when some fields failed), 400 with `errors` when it cannot
 * run. Needs view permission on the saved query, and the query within the requester's view.
 */
@ApiTags('extras')
@ApiParam({ name: 'id', description: 'The saved query (UUID or natural key)' })
@Controller('api/extras/graphql-queries/:id/run')
export class GraphqlQueryRunController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly resources: ResourceService,
    private readonly graphql: GraphqlService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Run a saved GraphQL query: {data} or {errors}' })
  @ResourceRoute(graphqlQueryResource, 'view')
  async run(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const saved = await this.resources.findOne(ctx, ctx.db, graphqlQueryResource, String(req.params.id), 'view');
    const body = parseBody(req, false) ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError({ non_field_errors: ['Invalid data. Expected a dictionary.'] });
    const variables = (body as Record<string, unknown>).variables ?? {};
    if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) throw new ValidationError({ variables: ['Expected a dictionary of items.'] });
    const { status, body: out } = await this.graphql.run(ctx, { query: saved.query, variables });
    return new ApiResponse(status, out);
  }
}
