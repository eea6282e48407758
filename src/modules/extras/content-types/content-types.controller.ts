import { All, Controller, Get, Header, Options, Req } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse } from '@nestjs/swagger';
import { Authenticated } from '../../../core/auth/decorators';
import { ContextFactory } from '../../../core/http/context.factory';
import type { NkRequest } from '../../../core/http/request';
import type { RequestContext } from '../../../core/context';
import { MethodNotAllowedError, NotFoundError } from '../../../core/resource/errors';
import { pageLink, parsePage, toQuery } from '../../../core/resource/query/params';
import { slugify } from '../../../core/resource/serialize/values';
import { allContentTypes, ContentTypeRow, contentTypeDisplay, contentTypeFilter } from './content-types';

const ALLOW = 'GET, HEAD, OPTIONS';
const NOT_FOUND = 'No ContentType matches the given query.';

/**
 * `/api/extras/content-types/` (read-only, any authenticated user, as the reference's
 * ContentTypeViewSet): every model's content type with its stable integer id, filtered as the
 * reference's ContentTypeFilterSet, paginated like every list.
 */
@Controller('api/extras/content-types')
export class ContentTypesController {
  constructor(private readonly contexts: ContextFactory) {}

  @Get()
  @ApiOkResponse({ description: 'A page of content types', schema: { type: 'object', properties: { count: { type: 'integer' }, next: { type: 'string', nullable: true }, previous: { type: 'string', nullable: true }, results: { type: 'array', items: { type: 'object' } } } } })
  @Header('Allow', ALLOW)
  @Authenticated()
  async list(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const q = toQuery(req.query);
    const tests = contentTypeFilter(ctx, q);
    const all = await allContentTypes(ctx);
    const matching: ContentTypeRow[] = [];
    for (const r of all) {
      let ok = true;
      for (const t of tests) if (!(await t(r))) ok = false;
      if (ok) matching.push(r);
    }
    const { limit, offset } = parsePage(q, ctx.settings);
    const page = limit === null ? matching : matching.slice(offset, offset + limit);
    const base = ctx.url(req.path);
    let next: string | null = null;
    let previous: string | null = null;
    if (limit !== null) {
      if (offset + limit < matching.length) next = pageLink(base, q, { limit: String(limit), offset: String(offset + limit) });
      if (offset > 0) previous = pageLink(base, q, { limit: String(limit), offset: offset - limit > 0 ? String(offset - limit) : null });
    }
    return { count: matching.length, next, previous, results: page.map((r) => represent(ctx, r)) };
  }

  @Get(':id')
  @Header('Allow', ALLOW)
  @Authenticated()
  async detail(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const id = String(req.params.id);
    const row = /^\d{1,9}$/.test(id) ? (await allContentTypes(ctx)).find((r) => r.id === Number(id)) : undefined;
    if (!row) throw new NotFoundError(NOT_FOUND);
    return represent(ctx, row);
  }

  @Options()
  @Header('Allow', ALLOW)
  @Authenticated()
  options() {
    return { name: 'Content Types', description: 'Read-only list of ContentTypes. Limit results to ContentTypes pertinent to Nautobot objects.', renders: ['application/json'], parses: ['application/json'] };
  }

  @Options(':id')
  @Header('Allow', ALLOW)
  @Authenticated()
  optionsDetail() {
    return { name: 'Content Type Instance', description: '', renders: ['application/json'], parses: ['application/json'] };
  }

  /** Writes are refused, as on every read-only endpoint (the document lists what is offered). */
  @All()
  @ApiExcludeEndpoint()
  @Header('Allow', ALLOW)
  @Authenticated()
  refuseList(@Req() req: NkRequest) {
    throw new MethodNotAllowedError(req.method);
  }

  @All(':id')
  @ApiExcludeEndpoint()
  @Header('Allow', ALLOW)
  @Authenticated()
  refuseDetail(@Req() req: NkRequest) {
    throw new MethodNotAllowedError(req.method);
  }
}

/** The reference's ContentTypeSerializer: id, object_type, display, url, natural_slug, app_label, model. */
function represent(ctx: RequestContext, r: ContentTypeRow) {
  return {
    id: r.id,
    object_type: 'contenttypes.contenttype',
    display: contentTypeDisplay(ctx, r),
    url: ctx.url(`/api/extras/content-types/${r.id}/`),
    natural_slug: `${slugify(r.app_label)}_${slugify(r.model)}_${r.id}`,
    app_label: r.app_label,
    model: r.model,
  };
}
