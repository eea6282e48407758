import { Controller, Delete, Get, Header, Patch, Post, Put, Req } from '@nestjs/common';
import { ApiBody, ApiExcludeEndpoint, ApiOperation, ApiParam, ApiResponse as ApiDoc, ApiTags } from '@nestjs/swagger';
import { RequirePermission, ResourceRoute } from '../../../core/auth/decorators';
import { ApiResponse } from '../../../core/http/api-response';
import { ContextFactory } from '../../../core/http/context.factory';
import { NkRequest, parseBody } from '../../../core/http/request';
import { MethodNotAllowedError } from '../../../core/resource/errors';
import { parseDepth, toQuery } from '../../../core/resource/query/params';
import { externalIdentityResource } from '../resources/external-identity.resource';
import { IdentityIntakeService } from '../services/identity-intake.service';

const ALLOW = 'GET, PUT, DELETE, HEAD';

/**
 * The intake endpoint of a source of record: PUT the message of one person (201 new, 200
 * updated or identical), GET what is stored, DELETE to mark the person deleted (204).
 */
@ApiTags('identity')
@ApiParam({ name: 'slug', description: 'The identity source' })
@ApiParam({ name: 'sorId', description: "The source's own id of the person" })
@Controller('api/identity/sources/:slug/identities/:sorId')
export class IdentityIntakeController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly intake: IdentityIntakeService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The stored identity with its roles (needs identity.view_externalidentity)' })
  @ApiDoc({ status: 200, description: 'The identity, as at /api/identity/external-identities/<id>/, plus its roles' })
  @Header('Allow', ALLOW)
  @ResourceRoute(externalIdentityResource, 'view')
  async get(@Req() req: NkRequest) {
    const depth = parseDepth(toQuery(req.query), 'GET');
    return this.intake.get(this.contexts.create(req), String(req.params.slug), String(req.params.sorId), depth);
  }

  @Put()
  @ApiOperation({ summary: 'Store the external identity message of one person (needs identity.change_externalidentity)' })
  @ApiBody({ description: 'The external identity message: optional meta and returnUrl, required sorAttributes', schema: { type: 'object', required: ['sorAttributes'] } })
  @ApiDoc({ status: 201, description: 'A new identity' })
  @ApiDoc({ status: 200, description: 'An updated identity, or an identical message (nothing changed)' })
  @ApiDoc({ status: 400, description: 'Every validation error, keyed by JSON path' })
  @ApiDoc({ status: 404, description: 'No such source, or an identity outside the writer\'s permission constraints (whether it exists or not)' })
  @ApiDoc({ status: 409, description: 'The source is disabled, or the person matches a user the source may not link (the message names no user)' })
  @ApiDoc({ status: 413, description: 'The message is larger than IDENTITY_MAX_MESSAGE_BYTES' })
  @Header('Allow', ALLOW)
  @RequirePermission('identity.change_externalidentity')
  async put(@Req() req: NkRequest) {
    parseDepth(toQuery(req.query), 'PUT');
    this.intake.checkSize(req.rawBody);
    const result = await this.intake.put(this.contexts.create(req), String(req.params.slug), String(req.params.sorId), parseBody(req, false, 'pass'));
    return new ApiResponse(result.created ? 201 : 200, result.body);
  }

  @Delete()
  @ApiOperation({ summary: 'Mark the identity deleted and end its access (needs identity.change_externalidentity)' })
  @ApiDoc({ status: 204, description: 'Deleted (also when it already was)' })
  @Header('Allow', ALLOW)
  @RequirePermission('identity.change_externalidentity')
  async remove(@Req() req: NkRequest) {
    await this.intake.delete(this.contexts.create(req), String(req.params.slug), String(req.params.sorId));
    return new ApiResponse(204, undefined);
  }

  @Post()
  @ApiExcludeEndpoint()
  @Header('Allow', ALLOW)
  @RequirePermission('identity.change_externalidentity')
  post(@Req() req: NkRequest) {
    throw new MethodNotAllowedError(req.method);
  }

  @Patch()
  @ApiExcludeEndpoint()
  @Header('Allow', ALLOW)
  @RequirePermission('identity.change_externalidentity')
  patch(@Req() req: NkRequest) {
    throw new MethodNotAllowedError(req.method);
  }
}
