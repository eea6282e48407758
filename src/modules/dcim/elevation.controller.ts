import { Controller, Get, Header, Req } from '@nestjs/common';
import { ResourceRoute } from '../../core/auth/decorators';
import { ContextFactory } from '../../core/http/context.factory';
import type { NkRequest } from '../../core/http/request';
import { FieldErrors, ValidationError } from '../../core/resource/errors';
import { first, pageLink, parsePage, Query, toQuery } from '../../core/resource/query/params';
import { isUuid, parseBoolean, ValueError } from '../../core/resource/query/values';
import { ResourceService } from '../../core/resource/resource.service';
import { Face, RackOccupancy, rackElevation } from './elevation';
import { rackResource } from './resources/rack.resource';

/** The elevation's query parameters as the reference validates them: every error at once, by parameter. */
function parameters(q: Query) {
  const errors: FieldErrors = {};
  const bool = (key: string, fallback: boolean | null, nullable = false): boolean | null => {
    const v = first(q, key);
    if (v === undefined) return fallback;
    if (nullable && ['', 'null'].includes(v.trim().toLowerCase())) return null;
    try {
      return parseBoolean(v);
    } catch (e) {
      if (!(e instanceof ValueError)) throw e;
      errors[key] = [e.message];
      return fallback;
    }
  };
  const face = first(q, 'face') ?? 'front';
  if (face !== 'front' && face !== 'rear') errors.face = [`"${face}" is not a valid choice.`];
  const render = first(q, 'render') ?? 'json';
  if (render === 'svg') errors.render = ['SVG rendering of rack elevations is not supported; use render=json.'];
  else if (render !== 'json') errors.render = [`"${render}" is not a valid choice.`];
  for (const key of ['unit_width', 'unit_height', 'legend_width']) {
    const v = first(q, key);
    if (v !== undefined && !/^\s*-?\d+\s*$/.test(v)) errors[key] = ['A valid integer is required.'];
  }
  const rawExclude = first(q, 'exclude');
  const exclude = rawExclude === undefined || rawExclude === '' ? null : isUuid(rawExclude) ? rawExclude.toLowerCase() : null;
  if (rawExclude && !exclude) errors.exclude = ['Must be a valid UUID.'];
  const expand = bool('expand_devices', true);
  bool('include_images', true);
  bool('display_fullname', true);
  const occupied = bool('is_occupied', null, true);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return { face: face as Face, exclude, expand: expand !== false, occupied, search: first(q, 'q') ?? '' };
}

/**
 * GET /api/dcim/racks/<id>/elevation/: the rack's units seen from one face, top first, as a
 * paginated list (Nautobot's RackViewSet.elevation, JSON rendering). Needs view on the rack;
 * a rack outside the requester's view is a 404.
 */
@Controller('api/dcim/racks/:id')
export class ElevationController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly service: ResourceService,
    private readonly occupancy: RackOccupancy,
  ) {}

  @Get('elevation')
  @Header('Allow', 'GET, HEAD, OPTIONS')
  @ResourceRoute(rackResource, 'view')
  async elevation(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const q = toQuery(req.query);
    const rack = await this.service.findOne(ctx, ctx.db, rackResource, String(req.params.id), 'view');
    const p = parameters(q);
    let units = rackElevation(rack, p.face, await this.occupancy.occupants(ctx, rack, p.exclude), p.expand);
    if (p.occupied !== null) units = units.filter((u) => u.occupied === p.occupied);
    if (p.search) units = units.filter((u) => String(u.id).includes(p.search) || u.name.includes(p.search));
    const { limit, offset } = parsePage(q, ctx.settings);
    const count = units.length;
    const base = ctx.url(req.path);
    const next = limit !== null && offset + limit < count ? pageLink(base, q, { limit: String(limit), offset: String(offset + limit) }) : null;
    const previous = limit !== null && offset > 0 ? pageLink(base, q, { limit: String(limit), offset: offset - limit > 0 ? String(offset - limit) : null }) : null;
    return { count, next, previous, results: limit === null ? units.slice(offset) : units.slice(offset, offset + limit) };
  }
}
