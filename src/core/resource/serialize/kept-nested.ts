import type { WatchedCache } from '../../../database/watched-cache';
import type { RequestContext } from '../../context';
import { modelCache } from '../definition-cache';
import { objectType, type ResourceDefinition } from '../definition';
import type { ResourceRegistry } from '../registry';
import { scopeIsOpen } from '../query/scope';
import type { Obj } from './batch';
import type { NestedTexts } from './json-encoder';
import { displayUses } from './display';

/** A nested object kept between requests: its representation at depth 0 (frozen) and its JSON text. */
export interface KeptObject {
  o: Obj;
  text: string;
}

/** A model's nested objects kept between requests, and the models whose view scopes must be open to use them. */
export interface KeptNested {
  cache: WatchedCache<string, KeptObject>;
  scopes: ResourceDefinition[];
}

/** How many objects of one model are kept (the oldest dropped first), and for how long while every change is heard. */
const KEPT = { max: 2000, ttlMs: 60_000 };

/** Per application (registry) and model: its kept nested objects, or null where they cannot be kept. */
const byRegistry = new WeakMap<ResourceRegistry, Map<ResourceDefinition, KeptNested | null>>();

/**
 * The objects a foreign key nests at depth 1 (a location's tenant, status and type; a device's
 * location, device type and role), kept between requests as the representer made them at depth 0
 * and as their JSON texts, by API version, base URL and id: a page of 1,000 locations at depth 1
 * then reads and represents none of its ~500 tenants again. Only where such a representation
 * reads nothing but watched tables (the model's own, the rows its display and natural key name,
 * the definitions its extensions load: custom fields), so that any change to them, by this
 * process or another, empties the model's cache (`modelCache`: PostgreSQL's notifications,
 * MySQL's change counts, this process's statements and cascading deletes). A representation at
 * depth 0 depends on no other request state but the API version and base URL, except for what
 * the requester may view: kept objects are used only where the requester's view scopes of the
 * model and of those rows are open (no constraints; `scopeIsOpen`), as they were read. Inside a
 * transaction nothing is kept or used (its reads may see its own uncommitted writes).
 */
export function keptNested(ctx: RequestContext, def: ResourceDefinition): KeptNested | null {
  let byDef = byRegistry.get(ctx.registry);
  if (!byDef) byRegistry.set(ctx.registry, (byDef = new Map()));
  let kept = byDef.get(def);
  if (kept === undefined) byDef.set(def, (kept = make(ctx, def)));
  return kept;
}

/** Whether the requester may use `kept`'s objects: every scope they were read through is open. */
export async function mayUseKept(ctx: RequestContext, kept: KeptNested): Promise<boolean> {
  for (const def of kept.scopes) if (!(await scopeIsOpen(ctx, { def, action: 'view', base: true }))) return false;
  return true;
}

/**
 * Nested objects at depth 0 (by id) from those kept, the others read by `read` (which writes
 * their texts into `texts`, as the representer does for a foreign key's objects) and kept.
 */
export async function keptObjects(ctx: RequestContext, kept: KeptNested, idList: string[], texts: NestedTexts, read: (ids: string[]) => Promise<Map<string, Obj>>): Promise<Map<string, Obj>> {
  const out = new Map<string, Obj>();
  const missing: string[] = [];
  for (const id of idList) {
    const hit = kept.cache.peek(keptKey(ctx, id));
    if (hit) {
      out.set(id, hit.o);
      texts.keep(hit);
    } else missing.push(id);
  }
  if (!missing.length) return out;
  const ticket = kept.cache.ticket();
  for (const [id, o] of await read(missing)) {
    out.set(id, o);
    const text = ticket && texts.keptText(o);
    // Frozen: the requests that use it share it, and none may change it.
    if (text) kept.cache.put(ticket, keptKey(ctx, id), { o: Object.freeze(o), text });
  }
  return out;
}

/** The key of an object kept for this request's API version and base URL. */
function keptKey(ctx: RequestContext, id: string): string {
  return `${ctx.apiVersion}\u0000${ctx.baseUrl}\u0000${id}`;
}

function make(ctx: RequestContext, def: ResourceDefinition): KeptNested | null {
  const { registry } = ctx;
  if (!def.watched || ctx.db.feed.mode === 'none') return null;
  const scopes = [def];
  const types = [objectType(def)];
  for (const use of displayUses(def)) {
    for (const t of [use.target, ...[...use.hops.values()].flatMap((h) => h.path.map((f) => f.target()))]) {
      scopes.push(t);
      types.push(objectType(t));
    }
  }
  // A field loaded from other rows at depth 0 (a reverse key, a computed field with a loader):
  // not kept (its rows are not known to be watched). Fields of every API version are checked.
  if (Object.values(def.fields).some((f) => f.kind === 'computed' && f.nested !== false && (f.load || f.reverse))) return null;
  for (const e of registry.extensionsOf(def)) {
    const part = e.represent;
    if (!part || part.include || !part.load) continue;
    if (!part.reads) return null;
    types.push(...part.reads);
  }
  if (!types.every((t) => registry.get(t)?.watched)) return null;
  return { cache: modelCache(ctx.db, registry, [...new Set(types)], KEPT), scopes: [...new Set(scopes)] };
}
