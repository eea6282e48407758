import type { Executor } from '../../../database/db';
import { and, ident, inList, join, Sql, sql } from '../../../database/sql';
import { objectType, ResourceDefinition } from '../../../core/resource/definition';
import type { ForeignKeyField } from '../../../core/resource/fields';
import { unscoped } from '../../../core/resource/query/rows';
import type { ResourceRegistry } from '../../../core/resource/registry';
import { CONTEXT_SOURCE, Dimension, DIMENSIONS, dimensionThrough } from './dimensions';
import { deepMerge } from '../../../core/collections';
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

/** One context that matches one object. */
export interface Match {
  weight: number;
  name: string;
  id: string;
}

export interface Matches {
  byObject: Map<string, Match[]>;
  data: Map<string, unknown>;
}

/**
 * The active contexts that match each of the objects, in one statement for all of them, built
 * of joins the planner estimates well (a correlated test per object and context made
 * PostgreSQL expect millions of row visits and spend seconds compiling it with JIT):
 * - `objs`: the objects with their value of each dimension;
 * - per tree dimension, the ancestors of the values (a recursive part);
 * - per dimension, `m<k>`: the (object, context) pairs whose link names the object's value (or
 *   an ancestor, or one of its tags), and `h<k>`: the contexts that name any of the dimension;
 * - the objects crossed with the active contexts, kept where for every dimension the context
 *   names none (`h<k>` misses) or matches (`m<k>` hits).
 * A context's data comes once, on its first row. Every context is read whatever the requester
 * may view of contexts, locations or tenant groups, as the reference renders them (its
 * annotation reads them unrestricted).
 */
export async function matchContexts(exec: Executor, registry: ResourceRegistry, def: ResourceDefinition, ids: string[], groups: GroupMembers[] = []): Promise<Matches> {
  const out: Matches = { byObject: new Map(), data: new Map() };
  const contexts = registry.get('extras.configcontext');
  if (!contexts || !ids.length) return out;
  const list = sourcesOf(def);
  const values = list.flatMap((s, k) => (s.kind === 'one' ? [sql`${s.expr} AS ${ident(`v${k}`)}`] : []));
  const ctes: Sql[] = [sql`${ident('objs')} AS (SELECT ${join([ident('o', 'id'), ...values])} ${unscoped(def, 'o').from(inList(ident('o', 'id'), ids))})`];
  const joins: Sql[] = [];
  const conds: Sql[] = [];
  const cc = ident(CONTEXT_SOURCE);
  list.forEach((s, k) => {
    const th = dimensionThrough(s.dim);
    const [m, h, v] = [`m${k}`, `h${k}`, ident('x', `v${k}`)];
    if (s.kind === 'none') {
      ctes.push(sql`${ident(h)} AS (SELECT DISTINCT ${cc} AS cid FROM ${ident(th.table)})`);
      joins.push(sql` LEFT JOIN ${ident(h)} ON ${ident(h, 'cid')} = ${ident('c', 'id')}`);
      conds.push(sql`${ident(h, 'cid')} IS NULL`);
      return;
    }
    let pairs: Sql;
    if (s.kind === 'groups') {
      // The object's groups: per linked group of its content type, the links of those objects of the page it holds.
      const per = groups.map(
        (g) =>
          sql`SELECT ${ident('x', 'id')} AS oid, ${ident('l', CONTEXT_SOURCE)} AS cid FROM ${ident('objs')} ${ident('x')} JOIN ${ident(th.table)} ${ident('l')} ON ${ident('l', th.target)} = ${g.id} WHERE ${ident('x', 'id')} IN ${g.members}`,
      );
      pairs = per.length
        ? sql`SELECT DISTINCT ${ident('u', 'oid')}, ${ident('u', 'cid')} FROM (${join(per, ' UNION ALL ')}) ${ident('u')}`
        : sql`SELECT ${ident('x', 'id')} AS oid, ${ident('l', CONTEXT_SOURCE)} AS cid FROM ${ident('objs')} ${ident('x')} JOIN ${ident(th.table)} ${ident('l')} ON 1=0`;
    } else if (s.kind === 'set') {
      // The object's own set (tags): `o` is the object's row in `objs`.
      pairs = sql`SELECT DISTINCT ${ident('o', 'id')} AS oid, ${ident('l', CONTEXT_SOURCE)} AS cid FROM ${ident('objs')} ${ident('o')} JOIN ${ident(th.table)} ${ident('l')} ON ${ident('l', th.target)} IN (${s.select})`;
    } else if (s.dim.tree && s.target.tree) {
      const up = `up${k}`;
      const parent = (s.target.fields[s.target.tree.parent] as ForeignKeyField).column;
      ctes.push(sql`${ident(up)} (start_id, id, parent_id) AS (
        SELECT ${ident('t', 'id')}, ${ident('t', 'id')}, ${ident('t', parent)} ${unscoped(s.target, 't').from(sql`${ident('t', 'id')} IN (SELECT ${ident(`v${k}`)} FROM ${ident('objs')})`)}
        UNION ALL
        SELECT ${ident(up, 'start_id')}, ${ident('p', 'id')}, ${ident('p', parent)} FROM ${ident(up)} ${unscoped(s.target, 'p').join(sql`${ident('p', 'id')} = ${ident(up, 'parent_id')}`)}
      )`);
      pairs = sql`SELECT DISTINCT ${ident('x', 'id')} AS oid, ${ident('l', CONTEXT_SOURCE)} AS cid FROM ${ident('objs')} ${ident('x')} JOIN ${ident(up)} ${ident('a')} ON ${ident('a', 'start_id')} = ${v} JOIN ${ident(th.table)} ${ident('l')} ON ${ident('l', th.target)} = ${ident('a', 'id')}`;
    } else {
      pairs = sql`SELECT DISTINCT ${ident('x', 'id')} AS oid, ${ident('l', CONTEXT_SOURCE)} AS cid FROM ${ident('objs')} ${ident('x')} JOIN ${ident(th.table)} ${ident('l')} ON ${ident('l', th.target)} = ${v}`;
    }
    ctes.push(sql`${ident(m)} AS (${pairs})`, sql`${ident(h)} AS (SELECT DISTINCT ${cc} AS cid FROM ${ident(th.table)})`);
    joins.push(
      sql` LEFT JOIN ${ident(h)} ON ${ident(h, 'cid')} = ${ident('c', 'id')}`,
      sql` LEFT JOIN ${ident(m)} ON ${ident(m, 'oid')} = ${ident('o', 'id')} AND ${ident(m, 'cid')} = ${ident('c', 'id')}`,
    );
    conds.push(sql`(${ident(h, 'cid')} IS NULL OR ${ident(m, 'oid')} IS NOT NULL)`);
  });
  const rows = await exec.query<{ object_id: string; context_id: string; weight: number; name: string; data: unknown }>(sql`WITH RECURSIVE ${join(ctes)}
    SELECT ${ident('o', 'id')} AS object_id, ${ident('c', 'id')} AS context_id, ${ident('c', 'weight')} AS weight, ${ident('c', 'name')} AS name,
      CASE WHEN ROW_NUMBER() OVER (PARTITION BY ${ident('c', 'id')} ORDER BY ${ident('o', 'id')}) = 1 THEN ${ident('c', 'data')} END AS data
    FROM ${ident('objs')} ${ident('o')} ${unscoped(contexts, 'c').join(sql`${ident('c', 'is_active')} = ${exec.dialect.toDb(true, 'boolean')}`)}${join(joins, '')}
    WHERE ${and(conds)}`);
  for (const r of rows) {
    const objectId = String(r.object_id);
    const list = out.byObject.get(objectId) ?? [];
    list.push({ weight: Number(r.weight), name: String(r.name), id: String(r.context_id) });
    out.byObject.set(objectId, list);
    if (r.data !== null && r.data !== undefined) out.data.set(String(r.context_id), jsonOf(r.data));
  }
  return out;
}

/** The rendered context of one object: its contexts' data merged by weight, then name, its local data on top. */
export function renderContext(matches: Matches, objectId: string, local: unknown): Obj {
  const list = [...(matches.byObject.get(objectId) ?? [])].sort((a, b) => a.weight - b.weight || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let data: Obj = {};
  for (const m of list) {
    const d = matches.data.get(m.id);
    if (isObject(d)) data = deepMerge(data, d);
  }
  const own = jsonOf(local);
  if (isObject(own) && Object.keys(own).length) data = deepMerge(data, own);
  return data;
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
