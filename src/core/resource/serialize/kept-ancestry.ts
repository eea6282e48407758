import type { CacheTicket, WatchedCache } from '../../../database/watched-cache';
import type { Executor, Row } from '../../../database/db';
import type { RequestContext } from '../../context';
import { modelCache } from '../definition-cache';
import { objectType, type ResourceDefinition } from '../definition';
import type { ResourceRegistry } from '../registry';
import { scopeIsOpen, visibleRows } from '../query/scope';
import { type Ancestry, loadAncestry } from '../query/tree';
import { ancestryOfPage } from './page-extras';

/** How many objects' chains of one tree model are kept (the oldest dropped first), and for how long while every change is heard. */
const KEPT = { max: 10_000, ttlMs: 60_000 };

/** Per application (registry) and model: its kept chains, or null where they cannot be kept. */
const byRegistry = new WeakMap<ResourceRegistry, Map<ResourceDefinition, WatchedCache<string, Ancestry> | null>>();

/**
 * The ancestor chains (names root first, depth: display "A → B → C", tree_depth, natural keys)
 * of a watched tree's objects, kept between requests by object id as the reads that computed them
 * found them: a detail's statement or `loadAncestry` (nested objects, rows read otherwise; not a
 * list page's statement: keeping a page's chains cost its server ~8 % more CPU). A chain is the
 * object's parent and its ancestors' names and parents, all rows of the tree's own table, so any
 * change to that table (by this process or another, heard as every watched table is:
 * `modelCache`) empties the model's chains. A detail whose object's chain is kept is read by a statement without the
 * ancestry: on MariaDB eight joins of the tree's table, ~20 % of the database's CPU for a
 * location's detail; on PostgreSQL a recursive walk (docs/performance.md, session 49).
 *
 * Kept and used only where the requester's view of the model is open (a constrained requester's
 * chains leave out the names of the ancestors it may not view), and never inside a transaction
 * (its reads may see its own uncommitted writes): null then.
 */
export async function keptAncestry(ctx: RequestContext, exec: Executor, def: ResourceDefinition): Promise<WatchedCache<string, Ancestry> | null> {
  if (!def.tree || !def.watched || exec !== ctx.db || ctx.db.inTransactionHere || ctx.db.feed.mode === 'none') return null;
  let byDef = byRegistry.get(ctx.registry);
  if (!byDef) byRegistry.set(ctx.registry, (byDef = new Map()));
  let kept = byDef.get(def);
  if (kept === undefined) byDef.set(def, (kept = modelCache<string, Ancestry>(ctx.db, ctx.registry, [objectType(def)], KEPT)));
  return kept && (await scopeIsOpen(ctx, { def, action: 'view', base: true })) ? kept : null;
}

/** Taken before a detail's statement that reads its object's ancestry (Representer.pageExtras), for `treeAncestry` to keep what it read. */
export async function ancestryTicket(ctx: RequestContext, exec: Executor, def: ResourceDefinition): Promise<CacheTicket | null> {
  return (await keptAncestry(ctx, exec, def))?.ticket() ?? null;
}

/** Whether the chain of the object `id` is kept for this requester (a detail then reads no ancestry). */
export async function ancestryKept(ctx: RequestContext, exec: Executor, def: ResourceDefinition, id: string): Promise<boolean> {
  return (await keptAncestry(ctx, exec, def))?.peek(id) !== undefined;
}

/**
 * The chains of a tree's rows: as their statement read them (kept with `ticket`, taken before
 * it: a detail's), else all kept, else loaded by one statement (and kept).
 */
export async function treeAncestry(ctx: RequestContext, exec: Executor, def: ResourceDefinition, rows: Row[], ticket?: CacheTicket | null): Promise<Map<string, Ancestry>> {
  const read = ancestryOfPage(rows);
  if (read && !ticket) return read;
  const kept = await keptAncestry(ctx, exec, def);
  const keep = (t: CacheTicket | null | undefined, chains: Map<string, Ancestry>) => {
    if (!kept || !t) return chains;
    // Frozen where they are (made for this read; the representer only reads them): the requests
    // that use a kept chain share it.
    for (const chain of chains.values()) {
      Object.freeze(chain.names);
      Object.freeze(chain);
    }
    kept.putAll(t, chains);
    return chains;
  };
  if (read) return keep(ticket, read);
  if (kept) {
    const out = new Map<string, Ancestry>();
    for (const r of rows) {
      const chain = kept.peek(String(r.id));
      if (!chain) break;
      out.set(String(r.id), chain);
    }
    if (out.size === rows.length) return out;
  }
  const before = kept?.ticket();
  return keep(before, await loadAncestry(exec, def, rows, await visibleRows(ctx, exec, def, 'a')));
}
