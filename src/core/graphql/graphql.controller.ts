import { Controller, Get, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthenticatedReads, Public } from '../auth/decorators';
import { ApiResponse } from '../http/api-response';
import { ContextFactory } from '../http/context.factory';
import { wantsHtml } from '../http/reply';
import { externalPath, NkRequest, parseBody } from '../http/request';
import { BadRequestError, NotFoundError } from '../resource/errors';
import { explorerFile, explorerPage } from './explorer';
import { SCRIPTED_PAGE_CSP } from '../http/page-files';
import { GraphqlService } from './graphql.service';

/**
 * `/api/graphql/`: POST `{query, variables, operationName}` (JSON, or the query alone as
 * `application/graphql`), GET `?query=&variables=`, and the explorer for a browser's GET. Any
 * authenticated user (as the reference's IsAuthenticated), a read-only token included: what a
 * query shows is scoped by the requester's object permissions, field by field.
 */
@ApiTags('graphql')
@Controller('api/graphql')
export class GraphqlController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly graphql: GraphqlService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Query the database using a GraphQL query' })
  @AuthenticatedReads()
  async post(@Req() req: NkRequest) {
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    let body: unknown;
    if (type === 'application/graphql') body = { query: (req.rawBody ?? Buffer.alloc(0)).toString('utf8') };
    else body = parseBody(req, false) ?? {};
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('The body must be a JSON object: {"query": ..., "variables": ...}.');
    return this.answer(req, body as Record<string, unknown>);
  }

  @Get()
  @ApiOperation({ summary: 'Query with ?query= (and ?variables=); a browser gets the GraphiQL explorer' })
  @AuthenticatedReads()
  async get(@Req() req: NkRequest) {
    if (wantsHtml(req)) {
      return new ApiResponse(200, explorerPage(externalPath(req, '')), {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': SCRIPTED_PAGE_CSP,
        'X-Frame-Options': 'DENY',
      });
    }
    const q = req.query as Record<string, unknown>;
    return this.answer(req, { query: q.query, variables: q.variables, operationName: q.operationName });
  }

  @Get('static/:file')
  @ApiExcludeEndpoint()
  @Public()
  asset(@Param('file') file: string) {
    const found = explorerFile(file);
    if (!found) throw new NotFoundError();
    return new ApiResponse(200, found.text, { 'Content-Type': `${found.type}; charset=utf-8`, 'Cache-Control': 'public, max-age=86400' });
  }

  private async answer(req: NkRequest, body: Record<string, unknown>) {
    const ctx = this.contexts.create(req);
    const { status, body: out } = await this.graphql.run(ctx, { query: body.query, variables: body.variables, operationName: body.operationName });
    return new ApiResponse(status, out);
  }
}
