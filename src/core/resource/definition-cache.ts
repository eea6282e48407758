import type { Settings } from '../../config/settings';
import type { Db } from '../../database/db';
import type { WatchedCache } from '../../database/watched-cache';
import type { ResourceRegistry } from './registry';

/** How long definitions are kept while every change to their tables is heard (the change feed is trusted). */
const HEARD_TTL_MS = 60_000;

/**
 * A `WatchedCache` of some models' tables and their link tables (the models are `watched`),
 * dropped when a statement of this process may have changed them, a delete from a table whose
 * foreign keys cascade into them included (a location deleted empties its config contexts'
 * links), and on another process's change heard through PostgreSQL's notifications or MySQL's
 * change counts. On MySQL/MariaDB no trigger counts the rows a cascade removes: where one comes
 * from a table without change triggers of its own, another process's delete is not heard, and
 * a value is kept no longer than one read unheard (`unheardTtlMs`).
 */
export function modelCache<K, V>(db: Db, registry: ResourceRegistry, types: string[], opts: { max: number; ttlMs: number; unheardTtlMs?: number }): WatchedCache<K, V> {
  const tables = registry.watchedTables(types);
  const cascadeFrom = registry.cascadeParents(tables);
  const watched = new Set(registry.tables().filter((t) => t.watched).map((t) => t.name));
  const unheard = db.feed.mode === 'poll' && cascadeFrom.some((t) => !watched.has(t));
  const ttlMs = unheard ? Math.min(opts.ttlMs, opts.unheardTtlMs ?? 0) : opts.ttlMs;
  return db.feed.cache(tables, { ...opts, ttlMs, cascadeFrom });
}

/**
 * A cache of definitions read from some models' tables (custom fields, computed fields,
 * relationships, config contexts, webhooks, job hooks): one value (`'all'`), a `modelCache` kept
 * 60 s while every change is heard, and DEFINITION_CACHE_SECONDS when read while changes could
 * go unheard (on MySQL also where a cascade from a table without triggers reaches them: config
 * contexts, job hooks).
 */
export function definitionCache<T>(db: Db, registry: ResourceRegistry, settings: Settings, types: string[]): WatchedCache<'all', T> {
  return modelCache(db, registry, types, { max: 1, ttlMs: HEARD_TTL_MS, unheardTtlMs: settings.DEFINITION_CACHE_SECONDS * 1000 });
}
