import type { Executor } from '../../../database/db';
import { ident, inList, join, raw, Sql, sql } from '../../../database/sql';
import { objectType, ResourceDefinition } from '../../../core/resource/definition';
import type { ForeignKeyField } from '../../../core/resource/fields';
import { unscoped } from '../../../core/resource/query/rows';
import type { ResourceRegistry } from '../../../core/resource/registry';
import { CONTEXT_SOURCE, Dimension, DIMENSIONS, dimensionThrough } from './dimensions';
import { deepMerge } from '../../../core/collections';
import { shared } from '../../../core/resource/serialize/json-encoder';
import { isObject } from './owner';

type Obj = Record<string, unknown>;

/** How a model finds its value(s) of a dimension: one id per object (a foreign-key path) or a set (tags). */
type Source = { dim: Dimension; kind: 'one'; expr: Sql; target: ResourceDefinition } | { dim: Dimension; kind: 'set'; select: Sql } | { dim: Dimension; kind: 'groups' } | { dim: Dimension; kind: 'none' };

/** A dynamic group linked to some context, and the ids of its members as a sub-select (groups/config-contexts.ts). */
export interface GroupMembers {
  id: string;
  members: Sql;
}

/**
 * The first of a dimension's paths the model has, as SQL over the object's alias `o`: a chain
 * of foreign keys is a nested sub-select per hop (the value itself on the object's row for one
 * hop); a many-to-many at the end (tags) is the sub-select of its targets. Null: the model has
 * none of the paths: its value is none, so only contexts that name nothing of the dimension
 * match it (the reference's `Q(device_types=None)` for a virtual machine).
 */
function sourceOf(def: ResourceDefinition, dim: Dimension): Source | null {
  if (dim.groups) return { dim, kind: 'groups' };
  for (const path of dim.paths) {
    let current = def;
    let expr: Sql = ident('o', 'id');
    let owner: Sql | null = null;
    const hops = path.split('__');
    let ok = true;
    for (let i = 0; i < hops.length && ok; i++) {
      const f = current.fields[hops[i]];
      if (f?.kind === 'fk') {
        const col = (f as ForeignKeyField).column;
        // Reads the chain whoever may view it: the reference walks it unrestricted.
        expr = i === 0 ? ident('o', col) : unscoped(current, `h${i}`).select(col, sql`${ident(`h${i}`, 'id')} = ${expr}`);
        current = f.target();
      } else if (f?.kind === 'm2m' && i === 0 && hops.length === 1) {
        // A set on the object itself (its tags): read from its row in the statement's `objs`.
        const th = f.through;
        const disc = th.discriminator ? sql` AND ${ident('th', th.discriminator)} = ${objectType(current)}` : sql``;
        owner = sql`SELECT ${ident('th', th.target)} FROM ${ident(th.table)} ${ident('th')} WHERE ${ident('th', th.source)} = ${expr}${disc}`;
      } else ok = false;
    }
    if (!ok) continue;
    if (owner) return { dim, kind: 'set', select: owner };
    return { dim, kind: 'one', expr, target: current };
  }
  return null;
}

const sources = new WeakMap<ResourceDefinition, Source[]>();
function sourcesOf(def: ResourceDefinition): Source[] {
  let list = sources.get(def);
  if (!list) sources.set(def, (list = DIMENSIONS.map((d) => sourceOf(def, d) ?? { dim: d, kind: 'none' })));
  return list;
}

/** An active context, as rendering needs it. */
export interface ActiveContext {
  id: string;
  weight: number;
  name: string;
  data: unknown;
  /** How many dimensions it names (0: it matches every object). */
  named: number;
}

/**
 * The active contexts and the dimensions they name: definitions, not data (every render reads
 * every context, whoever the requester is, as the reference's annotation does), kept between
 * requests by the catalogue source (catalogue.ts).
 */
export interface Catalogue {
  /** In merge order: weight, then name. */
  active: ActiveContext[];
  byId: Map<string, ActiveContext>;
  /** Indexes (into DIMENSIONS) of the dimensions some active context names. */
  dims: Set<number>;
}

/** Two statements: the active contexts, and which dimensions each names. */
export async function loadCatalogue(exec: Executor, registry: ResourceRegistry): Promise<Catalogue> {
  const out: Catalogue = { active: [], byId: new Map(), dims: new Set() };
  const contexts = registry.get('extras.configcontext');
  if (!contexts) return out;
  const rows = await exec.query<{ id: string; weight: number; name: string; data: unknown }>(
    sql`SELECT ${join([ident('id'), ident('weight'), ident('name'), ident('data')])} ${unscoped(contexts).from(sql`${ident('is_active')} = ${exec.dialect.toDb(true, 'boolean')}`)}`,
  );
  if (!rows.length) return out;
  const links = await exec.query<{ dim: number; cid: string }>(
    sql`${join(
      DIMENSIONS.map((d, k) => {
        const th = dimensionThrough(d);
        return sql`SELECT DISTINCT ${raw(String(k))} AS ${ident('dim')}, ${ident(CONTEXT_SOURCE)} AS ${ident('cid')} FROM ${ident(th.table)}`;
      }),
      ' UNION ALL ',
    )}`,
  );
  for (const r of rows) out.byId.set(String(r.id), { id: String(r.id), weight: Number(r.weight), name: String(r.name), data: jsonOf(r.data), named: 0 });
  for (const l of links) {
    const c = out.byId.get(String(l.cid));
    if (!c) continue;
    c.named++;
    out.dims.add(Number(l.dim));
  }
  out.active = [...out.byId.values()].sort((a, b) => a.weight - b.weight || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

/** The contexts that match each object of a batch, in merge order, and the merged data of each distinct list. */
export interface Matches {
  byObject: Map<string, ActiveContext[]>;
  /** Merged data by the list's ids: objects matching the same contexts share one merge. */
  merged: Map<string, Obj>;
}

/**
 * The active contexts that match each of the objects. A context matches an object when, for
 * every dimension it names, it names one of the object's values (or an ancestor of it, or one of
 * its tags or groups). The catalogue says which contexts name which dimensions; one statement
 * gives the (dimension, object, context) pairs where a link names an object's value, for the
 * dimensions some active context names only, built of joins the planner estimates well:
 * - `objs`: the objects with their value of each such dimension;
 * - per tree dimension, the ancestors of the values (a recursive part);
 * - per dimension, the pairs whose link names the object's value (or an ancestor, a tag, a group).
 * A context then matches an object when its pairs cover as many dimensions as it names. No
 * statement at all when only contexts that name nothing are active.
 */
export async function matchContexts(exec: Executor, def: ResourceDefinition, ids: string[], catalogue: Catalogue, groups: GroupMembers[] = []): Promise<Matches> {
  const out: Matches = { byObject: new Map(), merged: new Map() };
  if (!ids.length || !catalogue.active.length) return out;
  const list = sourcesOf(def);
  const used = list.map((s, k) => ({ s, k })).filter(({ s, k }) => catalogue.dims.has(k) && s.kind !== 'none');
  const covered = new Map<string, Map<string, number>>();
  if (used.length) {
    const values = used.flatMap(({ s, k }) => (s.kind === 'one' ? [sql`${s.expr} AS ${ident(`v${k}`)}`] : []));
    const ctes: Sql[] = [sql`${ident('objs')} AS (SELECT ${join([ident('o', 'id'), ...values])} ${unscoped(def, 'o').from(inList(ident('o', 'id'), ids))})`];
    const parts: Sql[] = [];
    for (const { s, k } of used) {
      const th = dimensionThrough(s.dim);
      const v = ident('x', `v${k}`);
      const dim = raw(String(k));
      const pair = sql`SELECT DISTINCT ${dim} AS ${ident('dim')}, ${ident('x', 'id')} AS ${ident('oid')}, ${ident('l', CONTEXT_SOURCE)} AS ${ident('cid')} FROM ${ident('objs')} ${ident('x')}`;
      if (s.kind === 'groups') {
        // The object's groups: per linked group of its content type, the links of those objects of the page it holds.
        for (const g of groups) parts.push(sql`${pair} JOIN ${ident(th.table)} ${ident('l')} ON ${ident('l', th.target)} = ${g.id} WHERE ${ident('x', 'id')} IN ${g.members}`);
      } else if (s.kind === 'set') {
        // The object's own set (tags): `o` is the object's row in `objs`.
        parts.push(sql`SELECT DISTINCT ${dim} AS ${ident('dim')}, ${ident('o', 'id')} AS ${ident('oid')}, ${ident('l', CONTEXT_SOURCE)} AS ${ident('cid')} FROM ${ident('objs')} ${ident('o')} JOIN ${ident(th.table)} ${ident('l')} ON ${ident('l', th.target)} IN (${s.select})`);
      } else if (s.kind === 'one' && s.dim.tree && s.target.tree) {
        const up = `up${k}`;
        const parent = (s.target.fields[s.target.tree.parent] as ForeignKeyField).column;
        ctes.push(sql`${ident(up)} (start_id, id, parent_id) AS (
          SELECT ${ident('t', 'id')}, ${ident('t', 'id')}, ${ident('t', parent)} ${unscoped(s.target, 't').from(sql`${ident('t', 'id')} IN (SELECT ${ident(`v${k}`)} FROM ${ident('objs')})`)}
          UNION ALL
          SELECT ${ident(up, 'start_id')}, ${ident('p', 'id')}, ${ident('p', parent)} FROM ${ident(up)} ${unscoped(s.target, 'p').join(sql`${ident('p', 'id')} = ${ident(up, 'parent_id')}`)}
        )`);
        parts.push(sql`${pair} JOIN ${ident(up)} ${ident('a')} ON ${ident('a', 'start_id')} = ${v} JOIN ${ident(th.table)} ${ident('l')} ON ${ident('l', th.target)} = ${ident('a', 'id')}`);
      } else {
        parts.push(sql`${pair} JOIN ${ident(th.table)} ${ident('l')} ON ${ident('l', th.target)} = ${v}`);
      }
    }
    if (parts.length) {
      const rows = await exec.query<{ dim: number; oid: string; cid: string }>(sql`WITH RECURSIVE ${join(ctes)} ${join(parts, ' UNION ')}`);
      for (const r of rows) {
        const oid = String(r.oid);
        const byContext = covered.get(oid) ?? covered.set(oid, new Map()).get(oid)!;
        const cid = String(r.cid);
        byContext.set(cid, (byContext.get(cid) ?? 0) + 1);
      }
    }
  }
  for (const id of ids) {
    const hits = covered.get(id);
    out.byObject.set(
      id,
      catalogue.active.filter((c) => c.named === 0 || hits?.get(c.id) === c.named),
    );
  }
  return out;
}

/** The rendered context of one object: its contexts' data merged by weight, then name, its local data on top. */
export function renderContext(matches: Matches, objectId: string, local: unknown): Obj {
  const list = matches.byObject.get(objectId) ?? [];
  const key = list.map((c) => c.id).join(',');
  let data = matches.merged.get(key);
  if (!data) {
    let merged: Obj = {};
    for (const c of list) if (isObject(c.data)) merged = deepMerge(merged, c.data);
    data = shared(merged) as Obj;
    matches.merged.set(key, data);
  }
  const own = jsonOf(local);
  // Objects with the same contexts share one merged value (read-only from here on); local data makes a copy.
  return isObject(own) && Object.keys(own).length ? deepMerge(data, own) : data;
}

/** A JSON column as a value, whatever the driver returned (MariaDB: text). */
export function jsonOf(v: unknown): unknown {
  if (typeof v === 'string') {
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  if (Buffer.isBuffer(v)) return jsonOf(v.toString('utf8'));
  return v;
}
