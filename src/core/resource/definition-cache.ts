import type { Settings } from '../../config/settings';
import type { Db } from '../../database/db';
import type { WatchedCache } from '../../database/change-feed';
import type { ResourceRegistry } from './registry';

/** How long definitions are kept while every change to their tables is heard (the change feed is trusted). */
const HEARD_TTL_MS = 60_000;

/**
 * A cache of definitions read from some models' tables (custom fields, computed fields,
 * relationships, config contexts, webhooks, job hooks): one value (`'all'`), kept in a
 * `WatchedCache` of the models' tables and their link tables (the models are `watched`).
 * Dropped when a statement of this process may have changed them, and on another process's
 * change heard through PostgreSQL's notifications; what was read while changes could go unheard
 * (MySQL) is kept DEFINITION_CACHE_SECONDS.
 */
export function definitionCache<T>(db: Db, registry: ResourceRegistry, settings: Settings, types: string[]): WatchedCache<'all', T> {
  return db.feed.cache(registry.watchedTables(types), { max: 1, ttlMs: HEARD_TTL_MS, unheardTtlMs: settings.DEFINITION_CACHE_SECONDS * 1000 });
}
