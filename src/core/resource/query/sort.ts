import type { Executor } from '../../../database/db';
import { ident, join, raw, Sql, sql } from '../../../database/sql';
import type { RequestContext } from '../../context';
import type { ResourceDefinition } from '../definition';
import type { Query } from './params';
import { storedColumns } from '../storage';
import { visibleRows } from './scope';

/**
 * Orders by one term: a scalar column, or a foreign key by the target's own first ordering
 * field, read only from a target the requester may view (a hidden one sorts as no value, so its
 * name cannot be learned from the order).
 */
async function term(ctx: RequestContext, exec: Executor, def: ResourceDefinition, name: string, desc: boolean, alias: string, requested: boolean): Promise<Sql | null> {
  const dir = raw(desc ? ' DESC' : ' ASC');
  if (name === 'id' || name === 'created' || name === 'last_updated') return sql`${ident(alias, name)}${dir}`;
  // A declared column: any in the model's own ordering, only `sortable` ones in `?sort=` (never a key's hash).
  const col = Object.hasOwn(def.columns ?? {}, name) ? def.columns![name] : undefined;
  if (col && (!requested || col.sortable)) return sql`${ident(alias, name)}${dir}`;
  if (!requested && !def.fields[name] && storedColumns(def).includes(name)) return sql`${ident(alias, name)}${dir}`;
  const f = def.fields[name];
  if (!f) return null;
  if (f.sortColumns && f.sortable !== false) return join(f.sortColumns.map((c) => sql`${ident(alias, c)}${dir}`));
  if (f.kind === 'scalar' && f.sortable !== false && f.type !== 'json') {
    // NULLs sort last ascending and first descending on every database (PostgreSQL's rule).
    const col = ident(alias, f.column);
    return f.nullable ? sql`(${col} IS NULL)${dir}, ${col}${dir}` : sql`${col}${dir}`;
  }
  if (f.kind === 'fk') {
    const target = f.target();
    const key = target.ordering[0]?.replace(/^-/, '') ?? 'name';
    const inner = `s_${alias}`;
    const keyField = target.fields[key];
    const column = keyField?.kind === 'scalar' ? keyField.column : Object.hasOwn(target.columns ?? {}, key) ? key : 'id';
    const visible = await visibleRows(ctx, exec, target, inner);
    const sub = visible.select(column, sql`${ident(inner, 'id')} = ${ident(alias, f.column)}`);
    // Without a scope the key is NULL exactly when there is no related object, unless the key itself may be NULL
    // (a role's weight): then, as with a scope (a hidden one), an object with no key sorts with those with no object.
    if (visible.restricted || (keyField?.kind === 'scalar' && keyField.nullable)) return sql`(${sub} IS NULL)${dir}, ${sub}${dir}`;
    return f.nullable ? sql`(${ident(alias, f.column)} IS NULL)${dir}, ${sub}${dir}` : sql`${sub}${dir}`;
  }
  if (f.kind === 'composite' && f.sortable) return join(f.columns.map((c) => sql`${ident(alias, c)}${dir}`));
  return null;
}

/**
 * `?sort=a,-b`: unknown terms are dropped silently (as the reference does); the model's default
 * ordering applies when none remain; `id` always breaks ties so pages never overlap.
 */
export async function orderBy(ctx: RequestContext, exec: Executor, def: ResourceDefinition, q: Query, alias: string): Promise<Sql> {
  const terms = async (list: string[], requested: boolean) => {
    const out: Sql[] = [];
    for (const t of list) {
      const s = await term(ctx, exec, def, t.replace(/^-/, ''), t.startsWith('-'), alias, requested);
      if (s) out.push(s);
    }
    return out;
  };
  const asked = (q.get('sort') ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  let list = await terms(asked, true);
  if (!list.length) list = await terms(def.ordering, false);
  list.push(sql`${ident(alias, 'id')} ASC`);
  return join(list);
}

