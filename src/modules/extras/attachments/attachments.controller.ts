import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ResourceRoute } from '../../../core/auth/decorators';
import { ContextFactory } from '../../../core/http/context.factory';
import type { NkRequest } from '../../../core/http/request';
import { NotFoundError } from '../../../core/resource/errors';
import { ResourceService } from '../../../core/resource/resource.service';
import { fileProxyFiles, fileProxyResource } from './file-proxy.resource';
import { fileResponse, readFile } from './file-storage';
import { imageAttachmentFiles, imageAttachmentResource, imageFilename } from './image-attachment.resource';

/**
 * The stored files: `GET image-attachments/<id>/image/` (inline, as a browser shows an image) and
 * `GET file-proxies/<id>/download/` (an attachment, as the reference's FileResponse). Each needs
 * the view permission of its model and the object within the requester's scope (404 otherwise).
 */
@ApiTags('extras')
@ApiParam({ name: 'id', description: 'The object (UUID)' })
@Controller()
export class AttachmentsController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly resources: ResourceService,
  ) {}

  @Get('api/extras/image-attachments/:id/image')
  @ApiOperation({ summary: 'The image of an image attachment.' })
  @ResourceRoute(imageAttachmentResource, 'view')
  async image(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const row = await this.resources.findOne(ctx, ctx.db, imageAttachmentResource, String(req.params.id), 'view');
    const file = await readFile(ctx.db, imageAttachmentFiles, String(row.id));
    if (!file) throw new NotFoundError();
    return fileResponse(file, imageFilename(row.image), 'inline');
  }

  @Get('api/extras/file-proxies/:id/download')
  @ApiOperation({ summary: 'Download the specified FileProxy.' })
  @ResourceRoute(fileProxyResource, 'view')
  async download(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const row = await this.resources.findOne(ctx, ctx.db, fileProxyResource, String(req.params.id), 'view');
    const file = await readFile(ctx.db, fileProxyFiles, String(row.id));
    if (!file) throw new NotFoundError();
    return fileResponse(file, String(row.name), 'attachment');
  }
}
