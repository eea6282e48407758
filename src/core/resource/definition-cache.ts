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
 * Dropped when a statement of this process may have changed them (a delete from a table whose
 * foreign keys cascade into them included: a location deleted empties its config contexts'
 * links), and on another process's change heard through PostgreSQL's notifications or MySQL's
 * change counts; what was read while changes could go unheard is kept DEFINITION_CACHE_SECONDS.
 * On MySQL/MariaDB that is also the bound where such a cascade exists: InnoDB fires no trigger
 * for the rows a cascade removes, so another process's delete is not counted.
 */
export function definitionCache<T>(db: Db, registry: ResourceRegistry, settings: Settings, types: string[]): WatchedCache<'all', T> {
  const tables = registry.watchedTables(types);
  const cascadeFrom = registry.cascadeParents(tables);
  const unheardTtlMs = settings.DEFINITION_CACHE_SECONDS * 1000;
  const ttlMs = db.feed.mode === 'poll' && cascadeFrom.length ? unheardTtlMs : HEARD_TTL_MS;
  return db.feed.cache(tables, { max: 1, ttlMs, unheardTtlMs, cascadeFrom });
}
