import type { Executor, Row } from '../../../database/db';
import { RequestContext, type PermissionResolver } from '../../context';
import { objectType, type ResourceDefinition } from '../definition';
import { storedRows } from '../query/rows';
import { Representer, type Obj } from './representer';

/**
 * Objects as a record of them holds them (a change record's `object_data_v2`, an event's `data`:
 * the reference's serialize_object_v2): the REST representation at depth 0, without count fields,
 * made as someone who may view these objects and nothing else. Whoever reads the record may view
 * the object, so its text (the display of a tree object names its ancestors, a module its bay)
 * names nothing more than the object itself.
 */
export async function ownRepresentations(ctx: RequestContext, exec: Executor, def: ResourceDefinition, rows: Row[]): Promise<Obj[]> {
  if (!rows.length) return [];
  const own: PermissionResolver = { constraints: async (_p, t) => (t === objectType(def) ? [{ id__in: rows.map((r) => String(r.id)) }] : []) };
  const snapshot = new RequestContext(ctx.db, ctx.settings, ctx.registry, own, ctx.principal, ctx.apiVersion, ctx.baseUrl, ctx.now, ctx.requestId);
  return (await new Representer(snapshot, exec).represent(def, rows, { depth: 0, include: new Set(), counts: false })) as Obj[];
}

/** The stored objects of these ids (whatever the requester may view) in their own representation, by id: one statement and the representer's. */
export async function ownData(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: string[]): Promise<Map<string, Obj>> {
  if (!ids.length) return new Map();
  const rows = await storedRows(exec, def, ids);
  const reps = await ownRepresentations(ctx, exec, def, rows);
  return new Map(rows.map((r, i) => [String(r.id), reps[i]]));
}
