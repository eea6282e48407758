import { Controller, Get, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import { PerModelRoute } from '../../core/http/openapi';
import { RequirePermission } from '../../core/auth/decorators';
import { ApiResponse } from '../../core/http/api-response';
import { ContextFactory } from '../../core/http/context.factory';
import { wantsCsv } from '../../core/http/negotiation';
import { CsvService } from '../../core/resource/csv/csv.service';
import { NkRequest, parseBody } from '../../core/http/request';
import { objectType, ResourceDefinition } from '../../core/resource/definition';
import { NotFoundError, ValidationError } from '../../core/resource/errors';
import { toQuery } from '../../core/resource/query/params';
import { ResourceRegistry } from '../../core/resource/registry';
import { ResourceService } from '../../core/resource/resource.service';

export const NOTE_TYPE = 'extras.note';

/**
 * `/api/<app>/<model>/<id>/notes/` (a plugin's: `/api/plugins/<base_url>/<model>/<id>/notes/`) for every model with the notes feature: the notes of one
 * object (paginated like any list), and adding one. Reading needs `extras.view_note` and
 * adding `extras.add_note`; either way the object itself must be visible to the requester.
 */
@Controller(['api/:app/:model/:id/notes', 'api/plugins/:app/:model/:id/notes'])
export class NotesController {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly service: ResourceService,
    private readonly contexts: ContextFactory,
    private readonly csv: CsvService,
  ) {}

  private target(req: NkRequest): { def: ResourceDefinition; notes: ResourceDefinition } {
    const root = req.path.startsWith('/api/plugins/') ? `plugins/${String(req.params.app)}` : String(req.params.app);
    const def = this.registry.forApp(root).find((d) => d.slug === req.params.model);
    const notes = this.registry.get(NOTE_TYPE);
    if (!def || !notes || !def.features.includes('notes')) throw new NotFoundError();
    return { def, notes };
  }

  @Get()
  @PerModelRoute('notes', NOTE_TYPE)
  @ApiOperation({ description: "List the notes of an object." })
  @RequirePermission('extras.view_note')
  async list(@Req() req: NkRequest) {
    const { def, notes } = this.target(req);
    const ctx = this.contexts.create(req);
    const obj = await this.service.findOne(ctx, ctx.db, def, String(req.params.id), 'view');
    const q = toQuery(req.query);
    q.set('assigned_object_type', [objectType(def)]);
    q.set('assigned_object_id', [String(obj.id)]);
    if (wantsCsv(req)) return this.csv.exportList(ctx, notes, q);
    return this.service.list(ctx, notes, q, req.path);
  }

  @Post()
  @PerModelRoute('notes', NOTE_TYPE)
  @ApiOperation({ description: 'Add a note to an object.' })
  @ApiBody({ required: true, schema: { type: 'object', required: ['note'], properties: { note: { type: 'string', description: 'The note (Markdown)' } } } })
  @RequirePermission('extras.add_note')
  async create(@Req() req: NkRequest) {
    const { def, notes } = this.target(req);
    const ctx = this.contexts.create(req);
    const body = parseBody(req, false);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ValidationError({ note: ['This field is required.'] });
    const obj = await this.service.findOne(ctx, ctx.db, def, String(req.params.id), 'view');
    const input = { ...(body as Record<string, unknown>), assigned_object_type: objectType(def), assigned_object_id: String(obj.id) };
    return new ApiResponse(201, await this.service.create(ctx, notes, input, toQuery(req.query)));
  }
}
