import { Controller, Get, Header, Inject, Req, Type } from '@nestjs/common';
import { ResourceRoute } from '../../../core/auth/decorators';
import type { RequestContext } from '../../../core/context';
import { ContextFactory } from '../../../core/http/context.factory';
import type { NkRequest } from '../../../core/http/request';
import { listPath, objectType, ResourceDefinition } from '../../../core/resource/definition';
import { visibleRows } from '../../../core/resource/query/scope';
import { ResourceService } from '../../../core/resource/resource.service';
import { Representer } from '../../../core/resource/serialize/representer';
import type { Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import { append } from '../../../core/collections';
import { PathNode, pathsThrough, storedPath } from './paths';

type Obj = Record<string, unknown>;

/** The objects of a path at depth 0, each read within the requester's view (one it may not view is null). */
async function represented(ctx: RequestContext, nodes: (PathNode | null)[]): Promise<Map<string, Obj>> {
  const byType = new Map<string, string[]>();
  for (const n of nodes) if (n) append(byType, n.type, n.id);
  const out = new Map<string, Obj>();
  const representer = new Representer(ctx, ctx.db);
  for (const [type, ids] of byType) {
    const def = ctx.registry.get(type);
    if (!def) continue;
    const visible = await visibleRows(ctx, ctx.db, def, 't');
    const rows: Row[] = await ctx.db.query(sql`SELECT t.* ${visible.from(inList(ident('t', 'id'), [...new Set(ids)]))}`);
    const reps = await representer.represent(def, rows, { depth: 0 });
    rows.forEach((r, i) => out.set(`${type}:${r.id}`, reps[i]));
  }
  return out;
}

/**
 * `GET <endpoint>/<id>/trace/` for a path endpoint model (Nautobot's PathEndpointMixin.trace):
 * the stored path from the object as (near end, cable, far end) segments, each object in its
 * own representation; a path that splits at a rear port ends there.
 */
export function traceController(def: ResourceDefinition): Type<unknown> {
  @Controller(`${listPath(def).slice(1)}:id`)
  class TraceController {
    constructor(
      @Inject(ContextFactory) readonly contexts: ContextFactory,
      @Inject(ResourceService) readonly service: ResourceService,
    ) {}

    @Get('trace')
    @Header('Allow', 'GET, HEAD, OPTIONS')
    @ResourceRoute(def, 'view')
    async trace(@Req() req: NkRequest) {
      const ctx = this.contexts.create(req);
      const origin = await this.service.findOne(ctx, ctx.db, def, String(req.params.id), 'view');
      const stored = origin._path_id ? await storedPath(ctx.db, String(origin._path_id)) : null;
      if (!stored) return [];
      const self: PathNode = { type: objectType(def), id: String(origin.id) };
      // [origin, cable, port, port, cable, ..., destination] in threes: pad a path that ends at a rear port.
      const seq: (PathNode | null)[] = [self, ...stored.nodes];
      while ((seq.length + 1) % 3) seq.push(null);
      seq.push(stored.destination);
      const objects = await represented(ctx, seq);
      const at = (n: PathNode | null) => (n ? (objects.get(`${n.type}:${n.id}`) ?? null) : null);
      const segments: (Obj | null)[][] = [];
      for (let i = 0; i + 2 < seq.length; i += 3) {
        if (!seq[i]) break;
        segments.push([at(seq[i]), at(seq[i + 1]), at(seq[i + 2])]);
      }
      return segments;
    }
  }
  Object.defineProperty(TraceController, 'name', { value: `${def.model.charAt(0).toUpperCase()}${def.model.slice(1)}TraceController` });
  return TraceController;
}

/**
 * `GET <pass-through port>/<id>/paths/` for front and rear ports (Nautobot's
 * PassThroughPortMixin.paths): every stored path through the port, with its origin and far end
 * as references and its nodes in their own representations, each within the requester's view.
 */
export function pathsController(def: ResourceDefinition): Type<unknown> {
  @Controller(`${listPath(def).slice(1)}:id`)
  class PathsController {
    constructor(
      @Inject(ContextFactory) readonly contexts: ContextFactory,
      @Inject(ResourceService) readonly service: ResourceService,
    ) {}

    @Get('paths')
    @Header('Allow', 'GET, HEAD, OPTIONS')
    @ResourceRoute(def, 'view')
    async paths(@Req() req: NkRequest) {
      const ctx = this.contexts.create(req);
      const port = await this.service.findOne(ctx, ctx.db, def, String(req.params.id), 'view');
      const stored = await pathsThrough(ctx.db, { type: objectType(def), id: String(port.id) });
      const objects = await represented(ctx, stored.flatMap((p) => [p.origin, p.destination, ...p.nodes]));
      const at = (n: PathNode | null) => (n ? (objects.get(`${n.type}:${n.id}`) ?? null) : null);
      const ref = (n: PathNode | null) => {
        const o = at(n);
        return o ? { id: o.id, object_type: o.object_type, url: o.url } : null;
      };
      return stored.map((p) => ({
        id: p.id,
        origin_type: p.origin.type,
        origin: ref(p.origin),
        destination_type: p.destination?.type ?? null,
        destination: ref(p.destination),
        path: p.nodes.map(at),
        is_active: p.active,
        is_split: p.split,
      }));
    }
  }
  Object.defineProperty(PathsController, 'name', { value: `${def.model.charAt(0).toUpperCase()}${def.model.slice(1)}PathsController` });
  return PathsController;
}
