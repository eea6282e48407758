import type { Row } from '../../../database/db';
import { CHANGE_COUNTS_TABLE } from '../../../database/schema/names';
import { ident, inList, sql, type Sql } from '../../../database/sql';
import type { RequestContext } from '../../context';
import type { ResourceDefinition } from '../definition';
import type { ResourceRegistry } from '../registry';
import { COUNT_COLUMN, isKeptExtras, keptWithColumns, M2M_COLUMN, type PageExtras } from './page-extras';

/** The column a detail's statement gives the change counts' sum in (`KeptValues.column`). */
export const VERSION_COLUMN = '__kept_v';

/**
 * How many objects' values are kept per model and statement shape (the least recently read
 * dropped first), and for how long after they were read: what no trigger counts (a TRUNCATE by
 * hand, triggers dropped between two checks of them) is read again after that at the latest.
 */
const KEPT = { objects: 5000, ms: 60_000 };

/**
 * A detail's count fields and many-to-many id lists, kept between requests on MySQL/MariaDB,
 * and the sum of the change counts (`netkeel_change_counts`) of every table they were read from
 * when they were read, by the same statement.
 *
 * A detail's statement there spends most of the database's time on them: each count or list is
 * a subquery MariaDB plans again at every execution (~17 µs a count, ~80 for the tags; the row
 * alone ~40). With the values kept, a detail reads its row (and whatever else it shows: display
 * rows, ancestry) and the sum of the counts: where the sum is the one read with the values, no
 * change to those tables was committed since (the row triggers of watched tables count every
 * row written, a sum only grows: folding moves counts, never drops them), and the kept values
 * are what the full statement would read now; otherwise the full statement is run (a second
 * statement) and its values kept. So a detail never shows values older than its own statement,
 * whichever process wrote them: unlike the caches of watched tables, this one does not wait
 * for a poll. The row itself is always read. What the triggers cannot count is bounded as for
 * those caches: values are not used across a moment the poller found counts missed or lost
 * (`ChangeFeed.countsEpoch`: triggers missing or back, a sum gone down, as a restored backup or
 * rows deleted by hand make it), nor once a minute old (a TRUNCATE by hand fires no trigger).
 *
 * Only for a model whose counts and lists read nothing but watched tables, and whose rows in
 * them no delete can reach unheard: InnoDB fires no trigger for rows a foreign key's cascade
 * deletes (or clears), so every table such a cascade starts from (for a SET NULL, one clearing
 * a column the values read) is watched as well, and its own delete counted. Used only where
 * every scope the extras took is open for the requester (kept extras: their counts are those of
 * everyone who may view every counted object), outside transactions, and while the poller has
 * found the triggers of every one of those tables (`ChangeFeed.counts`).
 */
export interface KeptValues {
  /** The tables the values are read from, and those whose deletes reach them: all counted (watched). */
  tables: string[];
  /** The statement's column giving the sum of the change counts of `tables`. */
  column: Sql;
  /** Kept values by the full extras they were read with (API version, shape), then by id. */
  byExtras: WeakMap<PageExtras, Map<string, KeptEntry>>;
}

interface KeptEntry {
  /** The sum of the change counts read with the values. */
  version: string;
  values: Row;
  /** `ChangeFeed.countsEpoch` then: counts missed or lost since (triggers missing, a sum gone down) leave them unused. */
  epoch: number;
  /** When they were read (ms). */
  at: number;
}

const byRegistry = new WeakMap<ResourceRegistry, Map<ResourceDefinition, KeptValues | null>>();

/** The kept values of a model's details, or null where they are not kept (not MySQL/MariaDB, tables not all watched). */
export function keptValues(ctx: RequestContext, def: ResourceDefinition): KeptValues | null {
  if (ctx.db.feed.mode !== 'poll') return null;
  let byDef = byRegistry.get(ctx.registry);
  if (!byDef) byRegistry.set(ctx.registry, (byDef = new Map()));
  let kept = byDef.get(def);
  if (kept === undefined) {
    const tables = ctx.registry.valueTables(def);
    kept = tables?.length
      ? { tables, column: sql`(SELECT CAST(COALESCE(SUM(${ident('changes')}), 0) AS CHAR) FROM ${ident(CHANGE_COUNTS_TABLE)} WHERE ${inList(ident('table_name'), tables)}) AS ${ident(VERSION_COLUMN)}`, byExtras: new WeakMap() }
      : null;
    // Counted by the feed: the poller checks their triggers (ChangeFeed.counts) and polls their counts.
    if (kept) ctx.db.feed.count(tables!);
    byDef.set(def, kept);
  }
  return kept;
}

/**
 * An object's row with its count fields and id lists: the kept values where the counts' sum says
 * nothing they read changed, read whole otherwise (and kept). `find` runs a detail's statement of
 * the given extras (a 404 where there is no such object); `lean` gives the extras without counts
 * and lists.
 */
export async function rowWithKeptValues(
  ctx: RequestContext,
  kept: KeptValues,
  extras: PageExtras,
  id: string,
  find: (extras: PageExtras) => Promise<Row>,
  lean: () => Promise<PageExtras>,
): Promise<Row> {
  if (!isKeptExtras(extras) || ctx.db.inTransactionHere || !ctx.db.feed.counts(kept.tables)) return find(extras);
  let objects = kept.byExtras.get(extras);
  if (!objects) kept.byExtras.set(extras, (objects = new Map()));
  const epoch = ctx.db.feed.countsEpoch;
  const now = Date.now();
  const hit = objects.get(id);
  if (hit && hit.epoch === epoch && now - hit.at <= KEPT.ms) {
    const leanExtras = await lean();
    if (isKeptExtras(leanExtras)) {
      const row = await find(keptWithColumns(leanExtras, () => [kept.column]));
      if (takeVersion(row) === hit.version) {
        // Read again: the least recently read are dropped first.
        objects.delete(id);
        objects.set(id, hit);
        return Object.assign(row, hit.values);
      }
    }
  }
  const row = await find(keptWithColumns(extras, () => [kept.column]));
  const version = takeVersion(row);
  const values: Row = {};
  for (const k in row) if (k.startsWith(COUNT_COLUMN) || k.startsWith(M2M_COLUMN)) values[k] = row[k];
  objects.delete(id);
  if (objects.size >= KEPT.objects) objects.delete(objects.keys().next().value!);
  objects.set(id, { version, values: Object.freeze(values), epoch, at: now });
  return row;
}

/** The sum a statement read with the row, taken out of it (the row is represented as it is). */
function takeVersion(row: Row): string {
  const version = String(row[VERSION_COLUMN]);
  delete row[VERSION_COLUMN];
  return version;
}
