import { ident, join, raw, Sql, sql } from '../../../database/sql';
import type { ResourceDefinition } from '../definition';
import type { Query } from './params';

/** Orders by one term: a scalar column, or a foreign key by the target's own first ordering field. */
function term(def: ResourceDefinition, name: string, desc: boolean, alias: string, depth = 0): Sql | null {
  const dir = raw(desc ? ' DESC' : ' ASC');
  if (name === 'id' || name === 'created' || name === 'last_updated' || (def.extraColumns ?? []).includes(name)) return sql`${ident(alias, name)}${dir}`;
  const f = def.fields[name];
  if (!f) return null;
  if (f.sortColumns && f.sortable !== false) return join(f.sortColumns.map((c) => sql`${ident(alias, c)}${dir}`));
  if (f.kind === 'scalar' && f.sortable !== false && f.type !== 'json') {
    // NULLs sort last ascending and first descending on every database (PostgreSQL's rule).
    const col = ident(alias, f.column);
    return f.nullable ? sql`(${col} IS NULL)${dir}, ${col}${dir}` : sql`${col}${dir}`;
  }
  if (f.kind === 'fk' && depth < 2) {
    const target = f.target();
    const key = target.ordering[0]?.replace(/^-/, '') ?? 'name';
    const inner = `s${depth}`;
    const col = target.fields[key];
    const column = col?.kind === 'scalar' ? col.column : (target.extraColumns ?? []).includes(key) ? key : 'id';
    const sub = sql`(SELECT ${ident(inner, column)} FROM ${ident(target.table)} ${ident(inner)} WHERE ${ident(inner, 'id')} = ${ident(alias, f.column)})`;
    return f.nullable ? sql`(${ident(alias, f.column)} IS NULL)${dir}, ${sub}${dir}` : sql`${sub}${dir}`;
  }
  if (f.kind === 'composite' && f.sortable) return join(f.columns.map((c) => sql`${ident(alias, c)}${dir}`));
  return null;
}

/**
 * `?sort=a,-b`: unknown terms are dropped silently (as the reference does); the model's default
 * ordering applies when none remain; `id` always breaks ties so pages never overlap.
 */
export function orderBy(def: ResourceDefinition, q: Query, alias: string): Sql {
  const requested = (q.get('sort') ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  let terms = requested.map((t) => term(def, t.replace(/^-/, ''), t.startsWith('-'), alias)).filter((t): t is Sql => !!t);
  if (!terms.length) terms = def.ordering.map((t) => term(def, t.replace(/^-/, ''), t.startsWith('-'), alias)).filter((t): t is Sql => !!t);
  terms.push(sql`${ident(alias, 'id')} ASC`);
  return join(terms);
}
