import type { Db, Executor, Row } from '../../../database/db';
import { ident, inList, join, Sql, sql } from '../../../database/sql';
import type { RequestContext, ScopeUse } from '../../context';
import { objectType, ResourceDefinition } from '../definition';
import type { Field, ForeignKeyField, ReverseKey } from '../fields';
import type { Ancestry } from '../query/tree';
import { noneRelated, unscoped } from '../query/rows';
import { scopeIsOpen, visibleRows } from '../query/scope';
import { orderBy } from '../query/sort';
import { DISPLAY_COLUMN, displayUses, hopJoins } from './display';

export { DISPLAY_COLUMN };
import type { ReadOptions } from './batch';

/** What the page-statement helpers need of a representer: its request, executor and which fields the request's version shows. */
export interface ReadRun {
  ctx: RequestContext;
  exec: Executor;
  readable(f: Field): boolean;
}

/** Prefix of the columns that carry count fields (Representer.pageExtras). */
export const COUNT_COLUMN = '__count_';
/** The column of a statement that carries a count field's count (COUNT_COLUMN + its name), made once per field. */
const countColumns = new WeakMap<Field, string>();
export function countColumn(f: Field): string {
  let c = countColumns.get(f);
  if (c === undefined) countColumns.set(f, (c = COUNT_COLUMN + f.name));
  return c;
}

/** Prefix of the page query's columns that list many-to-many ids (Representer.pageExtras). */
export const M2M_COLUMN = '__m2m_';
/** Prefix of the page query's columns that list a reverse foreign key's ids (Representer.pageExtras). */
export const REVERSE_COLUMN = '__rev_';
/** The name a page statement gives its page's rows (Representer.pageExtras). */
export const PAGE_CTE = 'p';

/** Prefix of the page query's columns that give a tree row's ancestry (Representer.pageExtras). */
export const ANCESTRY_COLUMN = '__anc_';

/**
 * Columns and the joins that compute them, added to a page statement (Representer.pageExtras),
 * and the (recursive) common table expressions the joins read, after the page's own.
 */
export interface PageExtras {
  columns: Sql[];
  joins: Sql[];
  ctes?: Sql[];
}

/**
 * A statement over a page: `rows` (a SELECT) named PAGE_CTE, then `select` from it with the
 * extras' joins and an ORDER BY (empty for none).
 */
export function withPage(rows: Sql, select: Sql, extras: Omit<PageExtras, 'columns'>, order: Sql): Sql {
  const { joins, ctes = [] } = extras;
  const head = ctes.length ? sql`WITH RECURSIVE ${ident(PAGE_CTE)} AS (${rows}), ${join(ctes)}` : sql`WITH ${ident(PAGE_CTE)} AS (${rows})`;
  return sql`${head} ${select} FROM ${ident(PAGE_CTE)}${joins.length ? sql` ${join(joins, ' ')}` : sql``}${order}`;
}

/**
 * Page extras built where every scope they took was open, per application (its database gateway:
 * its dialect and its models; a test process runs several), definition, API version,
 * exclude_m2m and shape.
 */
const openExtras = new WeakMap<Db, WeakMap<ResourceDefinition, Map<string, { extras: PageExtras; uses: ScopeUse[] }>>>();

/**
 * `pageExtras`, kept when every permission scope its build took was open (the requester sees
 * every row of those models: a superuser, permissions without constraints) and given again to
 * requesters for whom the same scopes are open: the parts then depend on nothing but the
 * application, the definition, the API version (which fields are readable), exclude_m2m and
 * the statement's shape. Building them was ~6 % of a detail's CPU. Anyone else gets them built
 * for their own scopes, as before.
 */
export async function keptPageExtras(x: ReadRun, def: ResourceDefinition, opts: ReadOptions, shape: ExtrasShape, ancestry = true, values = true): Promise<PageExtras> {
  const key = `${x.ctx.apiVersion}\u0000${opts.excludeM2m ? 1 : 0}\u0000${shape}\u0000${ancestry ? 1 : 0}\u0000${values ? 1 : 0}`;
  const kept = openExtras.get(x.ctx.db)?.get(def)?.get(key);
  if (kept && (await allOpen(x.ctx, kept.uses))) return kept.extras;
  // Every scope taken meanwhile is noted (work of the same request running alongside adds to
  // the list: more to check on reuse, never less).
  const uses: ScopeUse[] = [];
  x.ctx.scopeListeners.add(uses);
  let extras: PageExtras;
  try {
    extras = await pageExtras(x, def, opts, shape, ancestry, values);
  } finally {
    x.ctx.scopeListeners.delete(uses);
  }
  const distinct = [...new Map(uses.map((u) => [`${objectType(u.def)}\u0000${u.action}\u0000${u.base}`, u])).values()];
  if (!(await allOpen(x.ctx, distinct))) return extras;
  let byDef = openExtras.get(x.ctx.db);
  if (!byDef) openExtras.set(x.ctx.db, (byDef = new WeakMap()));
  let byKey = byDef.get(def);
  if (!byKey) byDef.set(def, (byKey = new Map()));
  // Shared by every request that reuses them: never changed.
  const shared = Object.freeze({ columns: Object.freeze(extras.columns), joins: Object.freeze(extras.joins), ctes: extras.ctes && Object.freeze(extras.ctes) }) as PageExtras;
  keptExtras.add(shared);
  byKey.set(key, { extras: shared, uses: distinct });
  return shared;
}

const keptExtras = new WeakSet<PageExtras>();

/** Kept extras with columns added (`keptWithColumns`), by the extras they were made from. */
const extended = new WeakMap<PageExtras, PageExtras>();

/**
 * Kept extras with `columns` after theirs, kept as well (a statement of them may be rendered
 * once), made once per kept extras: `columns` must depend on nothing but what the extras do
 * (their definition; kept-values.ts adds the change counts' sum of the tables they read).
 */
export function keptWithColumns(extras: PageExtras, columns: () => Sql[]): PageExtras {
  if (!keptExtras.has(extras)) throw new Error('only kept extras are extended');
  let out = extended.get(extras);
  if (!out) {
    out = Object.freeze({ columns: Object.freeze([...extras.columns, ...columns()]), joins: extras.joins, ctes: extras.ctes }) as PageExtras;
    keptExtras.add(out);
    extended.set(extras, out);
  }
  return out;
}

/**
 * Whether these are kept extras (`keptPageExtras`), given to this request because every scope
 * they took is open for its requester: a statement made of them and of open scopes depends on
 * nothing else, and may be rendered once (ResourceService.findOne).
 */
export const isKeptExtras = (extras: PageExtras): boolean => keptExtras.has(extras);

async function allOpen(ctx: RequestContext, uses: ScopeUse[]): Promise<boolean> {
  for (const u of uses) if (!(await scopeIsOpen(ctx, u))) return false;
  return true;
}

/** The ids of the page's rows, for the extras' grouped subqueries. */
const PAGE_IDS = sql`(SELECT ${ident('id')} FROM ${ident(PAGE_CTE)})`;

/**
 * How a statement's extras reach its rows: `page`, one grouped subquery over the page's ids per
 * value, LEFT JOINed (a 1,000-row page: ~4 ms against ~10 for a correlated subquery per row);
 * `row`, a subquery of each row, for a statement of one object (a detail: its six counts and
 * tags 0.14 -> 0.08 ms on PostgreSQL, where each grouped subquery builds a hash table; on
 * MariaDB a temporary table).
 */
export type ExtrasShape = 'page' | 'row';

/**
 * What a root page's statement adds to compute the page's count fields, the rows its display
 * uses and its many-to-many and reverse foreign key id lists and ancestry itself, so a list
 * costs no statement per such field: for each, a LEFT JOIN to the related table, or an
 * aggregate of the related rows (`shape`; the lists always of each row on MariaDB), and the
 * columns it gives. The statement
 * names its page rows `p` (a CTE, PAGE_CTE). A statement after the page would cost a round trip
 * and an IN list of the page's ids (~3 ms of a 1,000-address page). `values` false: without the
 * count fields and many-to-many id lists (a detail whose values are kept: kept-values.ts).
 */
export async function pageExtras(x: ReadRun, def: ResourceDefinition, opts: ReadOptions, shape: ExtrasShape = 'page', ancestry = true, values = true): Promise<PageExtras> {
  const out = values ? await countExtras(x, def, shape) : { columns: [], joins: [] };
  // Id lists and ancestry where a grouped subquery is a temporary table (MariaDB): a subquery of
  // each row, and the ancestry by joins. A page of 50 locations was three statements there
  // (its tags and ancestry read after it): 0.67-0.73x the floor's requests/s, 0.79-0.83x as one;
  // 1,000 rows take the same time either way.
  const listShape: ExtrasShape = x.exec.dialect.tempTables ? 'row' : shape;
  if (ancestry) await ancestryExtras(x, def, out, listShape);
  for (const use of displayUses(def)) {
    // PostgreSQL cuts longer names short: such a use is read by id instead.
    if ([use.key, ...use.keys].some((k) => k.length > 63)) continue;
    const j = `d${out.joins.length}`;
    const lender = await visibleRows(x.ctx, x.exec, use.target, j);
    out.joins.push(lender.join(sql`${ident(j, 'id')} = ${ident(PAGE_CTE, use.field.column)}`, true));
    const hopped = await hopJoins(x.ctx, x.exec, use.hops, j, `${j}h`);
    out.joins.push(...hopped.joins);
    const read = (c: string) => hopped.read.get(c) ?? ident(j, c);
    out.columns.push(sql`${ident(j, 'id')} AS ${ident(use.key)}`, ...use.columns.map((c, i) => sql`${read(c)} AS ${ident(use.keys[i])}`));
  }
  for (const f of Object.values(def.fields)) {
    if (f.kind !== 'computed' || !f.reverse || !x.readable(f)) continue;
    const target = f.reverse.target();
    const agg = x.exec.dialect.listAgg(ident('rl', 'id'), await orderBy(x.ctx, x.exec, target, new Map(), 'rl'));
    aggregated(out, listShape, `r${out.joins.length}`, ident('rl', f.reverse.column), agg, await reverseRows(x, f.reverse), REVERSE_COLUMN + f.name);
  }
  if (opts.excludeM2m || !values) return out;
  for (const f of Object.values(def.fields)) {
    if (f.kind !== 'm2m' || f.writeOnly || !x.readable(f)) continue;
    const target = f.target();
    const th = f.through;
    // By name, or by the target's own ordering (as a detail lists them).
    const agg = x.exec.dialect.listAgg(ident('ml', th.target), target.fields.name ? ident('mx', 'name') : await orderBy(x.ctx, x.exec, target, new Map(), 'mx'));
    const disc = th.discriminator ? sql` AND ${ident('ml', th.discriminator)} = ${objectType(def)}` : sql``;
    // Every linked object is listed: a hidden one is shown as a reference (its id), as in a detail.
    const linked = unscoped(target, 'mx').join(sql`${ident('mx', 'id')} = ${ident('ml', th.target)}`);
    aggregated(out, listShape, `m${out.joins.length}`, ident('ml', th.source), agg, (among) => sql`FROM ${ident(th.table)} ml ${linked} WHERE ${among}${disc}`, M2M_COLUMN + f.name);
  }
  return out;
}

/**
 * An aggregate `value` of the related rows (`rows`, given the condition that picks those whose
 * `key` is a statement row's id) as the column `name`, in the statement's `shape`: a grouped
 * subquery over the page's ids joined as `alias`, or a subquery of each row. `wrap`: what the
 * column makes of the value (NULL where no row is related).
 */
function aggregated(out: PageExtras, shape: ExtrasShape, alias: string, key: Sql, value: Sql, rows: (among: Sql) => Sql, name: string, wrap = (v: Sql) => v): void {
  if (shape === 'row') {
    out.columns.push(sql`${wrap(sql`(SELECT ${value} ${rows(sql`${key} = ${ident(PAGE_CTE, 'id')}`)})`)} AS ${ident(name)}`);
    return;
  }
  out.joins.push(sql`LEFT JOIN (SELECT ${key} AS k, ${value} AS v ${rows(sql`${key} IN ${PAGE_IDS}`)} GROUP BY ${key}) ${ident(alias)} ON ${ident(alias, 'k')} = ${ident(PAGE_CTE, 'id')}`);
  out.columns.push(sql`${wrap(ident(alias, 'v'))} AS ${ident(name)}`);
}

async function countExtras(x: ReadRun, def: ResourceDefinition, shape: ExtrasShape): Promise<PageExtras> {
  const out: PageExtras = { columns: [], joins: [] };
  for (const f of Object.values(def.fields)) {
    if (f.kind !== 'count' || !x.readable(f)) continue;
    const path = x.ctx.registry.countPath(f);
    if (!path) continue;
    const cc = await visibleRows(x.ctx, x.exec, path.counted, 'cc');
    let key: Sql;
    let rows: (among: Sql) => Sql;
    if (path.link) {
      const th = path.link.through;
      key = ident('cl', th.target);
      // A link names an existing object (its foreign key): where the requester sees every one and
      // the table links one model alone, the links count them without the objects' table (MariaDB
      // spends ~15-30 µs on each table a statement names).
      const joined = cc.restricted || th.discriminator ? sql` ${cc.join(sql`${ident('cc', 'id')} = ${ident('cl', th.source)}`)}` : sql``;
      rows = (among) => sql`FROM ${ident(th.table)} cl${joined} WHERE ${among}`;
    } else if (path.keys.length === 1) {
      key = ident('cc', path.keys[0].column);
      rows = (among) => cc.from(among);
    } else {
      // A path of foreign keys (`cluster__location`): each object on the way within the requester's view.
      const joins: Sql[] = [];
      let alias = 'cc';
      for (const fk of path.keys.slice(0, -1)) {
        const next = `ch${joins.length}`;
        joins.push(sql` ${(await visibleRows(x.ctx, x.exec, fk.target(), next)).join(sql`${ident(next, 'id')} = ${ident(alias, fk.column)}`)}`);
        alias = next;
      }
      key = ident(alias, path.keys[path.keys.length - 1].column);
      rows = (among) => cc.fromJoined(join(joins, ''), among);
    }
    aggregated(out, shape, `c${out.joins.length}`, key, sql`COUNT(*)`, rows, COUNT_COLUMN + f.name, (v) => sql`COALESCE(${v}, 0)`);
  }
  return out;
}

/**
 * A tree's ancestry (display "A → B → C", tree_depth, natural keys) in the page statement: a
 * recursive walk up from the page's rows (`up`: row, the next ancestor's id, level, and the
 * ancestor's item), and per row the number of its ancestors and their items, root first, each a
 * visibility flag (1: the requester may view it and it lends its name) and the name's UTF-8
 * bytes in hex, comma-joined. Each level joins the tree's table once, reading the ancestor's
 * item as it goes (a join for the walk and another for the names made PostgreSQL hash the whole
 * table twice: a detail's statement took 2.5x as long). Where a recursive CTE costs temporary
 * tables (MariaDB) a statement walks by joins instead (ancestryJoins). Read back by
 * `ancestryOfPage`. (loadAncestry, for rows read otherwise, walks up from their distinct parents.)
 */
async function ancestryExtras(x: ReadRun, def: ResourceDefinition, out: PageExtras, shape: ExtrasShape): Promise<void> {
  if (!def.tree) return;
  const { dialect } = x.exec;
  if (dialect.tempTables) return ancestryJoins(x, def, out);
  const agg = dialect.listAgg(ident('up', 'item'), sql`${ident('up', 'lvl')} DESC`);
  const item = await ancestorItem(x, def, 'a');
  const parent = (def.fields[def.tree.parent] as ForeignKeyField).column;
  // The ancestor `a` whose id `child` names: every one is walked, a hidden one too (it counts toward tree_depth, unnamed).
  const ancestor = (child: Sql) => unscoped(def, 'a').join(sql`${ident('a', 'id')} = ${child}`);
  out.ctes = [
    ...(out.ctes ?? []),
    sql`${ident('up')} (${ident('id')}, ${ident('anc')}, ${ident('lvl')}, ${ident('item')}) AS (SELECT ${ident(PAGE_CTE, 'id')}, ${ident('a', parent)}, 1, ${item} FROM ${ident(PAGE_CTE)} ${ancestor(ident(PAGE_CTE, parent))} UNION ALL SELECT ${ident('up', 'id')}, ${ident('a', parent)}, ${ident('up', 'lvl')} + 1, ${item} FROM ${ident('up')} ${ancestor(ident('up', 'anc'))})`,
  ];
  const j = `an${out.joins.length}`;
  out.joins.push(sql`LEFT JOIN (SELECT ${ident('up', 'id')} AS k, COUNT(*) AS n, ${agg} AS v FROM ${ident('up')} GROUP BY ${ident('up', 'id')}) ${ident(j)} ON ${ident(j, 'k')} = ${ident(PAGE_CTE, 'id')}`);
  out.columns.push(sql`${ident(j, 'n')} AS ${ident(ANCESTRY_COLUMN + 'n')}`, sql`${ident(j, 'v')} AS ${ident(ANCESTRY_COLUMN + 'v')}`);
}

/**
 * An ancestor's item in a statement's ancestry (the ancestor on `alias`): a visibility flag (1:
 * the requester may view it and it lends its name) and the name's UTF-8 bytes in hex.
 */
async function ancestorItem(x: ReadRun, def: ResourceDefinition, alias: string): Promise<Sql> {
  return sql`CONCAT(CASE WHEN ${(await visibleRows(x.ctx, x.exec, def, alias)).visible} THEN '1' ELSE '0' END, ${x.exec.dialect.hexText(ident(alias, 'name'))})`;
}

/** How many ancestors a statement of one object reads by joins (ancestryJoins). */
const ANCESTRY_JOINS = 8;

/**
 * `ancestryExtras` where a recursive CTE costs temporary tables (MariaDB; dialect.tempTables), for
 * a statement of one object or a page: the first ANCESTRY_JOINS ancestors, each a LEFT JOIN on its
 * child's parent key, read as the same two columns (the count -1 where the tree goes higher: the
 * statement's ancestry is then loaded by a statement of its own). A location's detail: the database's CPU of the
 * statement without ancestry, against twice that with the recursive walk (docs/performance.md,
 * session 37); each join more costs MariaDB parsing and planning (sixteen: ~+40 %).
 */
async function ancestryJoins(x: ReadRun, def: ResourceDefinition, out: PageExtras): Promise<void> {
  const parent = (def.fields[def.tree!.parent] as ForeignKeyField).column;
  const items: Sql[] = [];
  const found: Sql[] = [];
  let child = ident(PAGE_CTE, parent);
  for (let i = 0; i < ANCESTRY_JOINS; i++) {
    const a = `an${i}`;
    // Every one is joined, a hidden one too (it counts toward tree_depth, unnamed).
    out.joins.push(unscoped(def, a).join(sql`${ident(a, 'id')} = ${child}`, true));
    items.unshift(sql`CASE WHEN ${ident(a, 'id')} IS NOT NULL THEN ${await ancestorItem(x, def, a)} END`);
    found.push(sql`CASE WHEN ${ident(a, 'id')} IS NOT NULL THEN 1 ELSE 0 END`);
    child = ident(a, parent);
  }
  out.columns.push(
    sql`CASE WHEN ${child} IS NULL THEN ${join(found, ' + ')} ELSE -1 END AS ${ident(ANCESTRY_COLUMN + 'n')}`,
    // Root first; CONCAT_WS skips the NULLs of the levels above the root.
    sql`CONCAT_WS(',', ${join(items)}) AS ${ident(ANCESTRY_COLUMN + 'v')}`,
  );
}

/**
 * The ancestry of a page's rows that its statement read (ancestryExtras); undefined when it did
 * not, or not all of it (a tree higher than ancestryJoins reads).
 */
export function ancestryOfPage(rows: Row[]): Map<string, Ancestry> | undefined {
  if (!(ANCESTRY_COLUMN + 'n' in rows[0]) || rows.some((r) => Number(r[ANCESTRY_COLUMN + 'n']) < 0)) return undefined;
  const out = new Map<string, Ancestry>();
  for (const r of rows) {
    const v = r[ANCESTRY_COLUMN + 'v'] as string | null;
    const names = v ? v.split(',').flatMap((item) => (item[0] === '1' ? [Buffer.from(item.slice(1), 'hex').toString('utf8')] : [])) : [];
    out.set(String(r.id), { names, depth: Number(r[ANCESTRY_COLUMN + 'n'] ?? 0) });
  }
  return out;
}

/** The count fields of rows read without them (a write's response, a special endpoint's objects). */
export async function countRows(x: ReadRun, def: ResourceDefinition, rows: Row[]): Promise<Row[]> {
  // New objects count nothing in tables this transaction has not written (TxWrites).
  if (x.exec.writes && noneRelated(x.exec, def, rows.map((r) => r.id), countedModels(x, def))) return [];
  const { columns, joins } = await countExtras(x, def, 'page');
  if (!columns.length) return [];
  // The rows were read within the requester's view.
  const ids = sql`SELECT t.${ident('id')} ${unscoped(def, 't').from(inList(ident('t', 'id'), rows.map((r) => r.id)))}`;
  return x.exec.query(withPage(ids, sql`SELECT ${ident(PAGE_CTE, 'id')}, ${join(columns)}`, { joins }, sql``));
}

/** What a model's count fields read: each counted model, its link table (by name) or the models on its path. */
function countedModels(x: ReadRun, def: ResourceDefinition): (ResourceDefinition | string)[] {
  const out: (ResourceDefinition | string)[] = [];
  for (const f of Object.values(def.fields)) {
    const counted = f.kind === 'count' && x.readable(f) ? x.ctx.registry.get(f.model) : undefined;
    if (f.kind !== 'count' || !counted) continue;
    out.push(counted);
    const hops = f.via.split('__');
    const via = counted.fields[hops[0]];
    if (hops.length === 1 && via?.kind === 'm2m') out.push(via.through.table);
    let at: ResourceDefinition = counted;
    for (const hop of hops.slice(0, -1)) {
      const fk = at.fields[hop];
      if (fk?.kind !== 'fk') break;
      at = fk.target();
      out.push(at);
    }
  }
  return out;
}

/**
 * `FROM` the target rows (alias `rl`) of a reverse foreign key whose key is `among` the given
 * rows', within the requester's view. `IS NOT NULL` (which IN implies) lets the planner see how few
 * rows have the key at all (few addresses have a NAT inside): one index range instead of a
 * probe per row, and MariaDB then keeps to that index rather than the ordering one.
 */
export async function reverseFrom(x: ReadRun, reverse: ReverseKey, among: Sql): Promise<Sql> {
  return (await reverseRows(x, reverse))(among);
}

/** `reverseFrom` for any condition `among`. */
async function reverseRows(x: ReadRun, reverse: ReverseKey): Promise<(among: Sql) => Sql> {
  const rl = await visibleRows(x.ctx, x.exec, reverse.target(), 'rl');
  return (among) => rl.from(sql`${ident('rl', reverse.column)} IS NOT NULL`, among);
}
