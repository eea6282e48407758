import { Controller, Get, Header, Inject, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ResourceRoute } from '../../../core/auth/decorators';
import { ContextFactory } from '../../../core/http/context.factory';
import type { NkRequest } from '../../../core/http/request';
import { ResourceService } from '../../../core/resource/resource.service';
import { SETTINGS } from '../../../config/settings.module';
import type { Settings } from '../../../config/settings';
import { secretResource } from '../resources/secret.resource';
import { checkSecret } from './providers';

/**
 * `GET /api/extras/secrets/<id>/check/`: whether the secret's value can be read,
 * `{"result": true, "message": "Passed"}` or `false` with the reason (the reference's answer).
 * The value itself is never shown. Needs `extras.view_secret` and the secret in the requester's
 * view (404 otherwise), as the reference's detail action. It reads only what the operator
 * allowed: SECRETS_ENV_VARIABLES, SECRETS_FILE_ROOT.
 */
@ApiTags('extras')
@ApiParam({ name: 'id', description: 'The secret (UUID or natural key)' })
@Controller('api/extras/secrets/:id/check')
export class SecretCheckController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly resources: ResourceService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  @Get()
  @ApiOperation({ summary: "Check that a secret's value is accessible: {result, message}" })
  @Header('Allow', 'GET, HEAD')
  @ResourceRoute(secretResource, 'view')
  async check(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const row = await this.resources.findOne(ctx, ctx.db, secretResource, String(req.params.id), 'view');
    const parameters = typeof row.parameters === 'string' ? JSON.parse(row.parameters) : row.parameters;
    return checkSecret(
      { name: String(row.name), provider: String(row.provider), parameters },
      { environment: this.settings.secretEnvironment, fileRoot: this.settings.SECRETS_FILE_ROOT, dataDir: this.settings.DATA_DIR },
    );
  }
}
