import type { Executor, Row } from '../../../database/db';
import { ident, Sql, sql } from '../../../database/sql';
import type { RequestContext } from '../../context';
import { visibleRows } from '../query/scope';
import { objectType, type DisplayHelpers, type ResourceDefinition } from '../definition';
import type { ForeignKeyField } from '../fields';
import { Batch, Obj, ref } from './batch';
import { slugify } from './values';

/** Prefix of the page query's columns that carry the rows display uses (Representer.pageExtras). */
export const DISPLAY_COLUMN = '__display_';


/** A foreign key whose rows display uses, with the columns read and their names in a page statement. */
interface DisplayUse {
  name: string;
  field: ForeignKeyField;
  target: ResourceDefinition;
  /** The target's columns read besides its id. */
  columns: string[];
  /** The page statement's column of the target's id (null: no such object visible). */
  key: string;
  /** The page statement's columns of `columns`. */
  keys: string[];
  /** Columns named `<fk>__<column>` (`<fk>__<fk>__<column>`, ...): read through the target's foreign keys (a device type's manufacturer name, a version's platform's name). */
  hops: Map<string, DisplayHop>;
}

/** A display column read through foreign keys of the target, one or more. */
export interface DisplayHop {
  /** The foreign keys walked, from the target on. */
  path: ForeignKeyField[];
  column: string;
}

/** The `<fk>__...__<column>` columns of a display use, by name. */
function hopsOf(target: ResourceDefinition, columns: string[]): Map<string, DisplayHop> {
  const hops = new Map<string, DisplayHop>();
  for (const c of columns) {
    const parts = c.split('__');
    if (parts.length === 1) continue;
    const path: ForeignKeyField[] = [];
    let at = target;
    for (const name of parts.slice(0, -1)) {
      const field = at.fields[name];
      if (field?.kind !== 'fk') throw new Error(`displayUses: ${c} names no foreign key column of ${objectType(at)}`);
      path.push(field);
      at = field.target();
    }
    hops.set(c, { path, column: parts[parts.length - 1] });
  }
  return hops;
}

/**
 * The LEFT JOINs that read a display use's hops from its target's rows on alias `from` (each
 * walked path joined once, through the rows the requester may view: what lies past a hidden
 * object reads as NULL), and the expression of each hop's column. Aliases start with `prefix`.
 */
export async function hopJoins(ctx: RequestContext, exec: Executor, hops: Map<string, DisplayHop>, from: string, prefix: string): Promise<{ joins: Sql[]; read: Map<string, Sql> }> {
  const joins: Sql[] = [];
  const aliases = new Map<string, string>();
  const read = new Map<string, Sql>();
  for (const [c, hop] of hops) {
    let at = from;
    let walked = '';
    for (const f of hop.path) {
      walked += `${f.name}__`;
      let a = aliases.get(walked);
      if (!a) {
        a = `${prefix}${aliases.size}`;
        aliases.set(walked, a);
        const rows = await visibleRows(ctx, exec, f.target(), a);
        joins.push(rows.join(sql`${ident(a, 'id')} = ${ident(at, f.column)}`, true));
      }
      at = a;
    }
    read.set(c, ident(at, hop.column));
  }
  return { joins, read };
}

const displayUsesOf = new WeakMap<ResourceDefinition, DisplayUse[]>();

/** `def.displayUses` with the columns each reads: as declared, and `name` for a natural key's foreign key (natural_slug shows it). */
export function displayUses(def: ResourceDefinition): DisplayUse[] {
  let list = displayUsesOf.get(def);
  if (!list) {
    list = Object.entries(def.displayUses ?? {}).map(([name, declared]) => {
      const field = def.fields[name] as ForeignKeyField;
      const target = field.target();
      const columns = [...declared];
      const named = target.fields.name;
      if (def.naturalKey.includes(name) && named?.kind === 'scalar' && named.column === 'name' && !columns.includes('name')) columns.push('name');
      const key = DISPLAY_COLUMN + name;
      return { name, field, target, columns, key, keys: columns.map((c) => `${key}__${c}`), hops: hopsOf(target, columns) };
    });
    displayUsesOf.set(def, list);
  }
  return list;
}

/** The rows a display uses, from the columns a page statement joined in. */
export function displayRowsOfPage(rows: Row[], use: DisplayUse): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const r of rows) {
    const id = r[use.key];
    if (id === null || id === undefined || out.has(String(id))) continue;
    const row: Row = { id };
    use.columns.forEach((c, i) => (row[c] = r[use.keys[i]]));
    out.set(String(id), row);
  }
  return out;
}

export const NO_ANCESTORS: string[] = [];

/** What display and natural_slug read of the row being represented (set before each row). */
export class RowHelpers implements DisplayHelpers {
  row: Row = {};
  ancestors: string[] = NO_ANCESTORS;
  constructor(private readonly b: Batch) {}

  related(name: string): Row | null {
    const f = this.b.def.fields[name] as ForeignKeyField;
    const v = this.row[f.column];
    return v ? (this.b.displayRows.get(name)?.get(String(v)) ?? null) : null;
  }
}

/** The batch's reference to the object `id` of foreign key `f`'s target. */
export function batchRef(b: Batch, f: ForeignKeyField, id: string, ctx: RequestContext): Obj {
  let refs = b.refs.get(f.name);
  if (!refs) b.refs.set(f.name, (refs = new Map()));
  let r = refs.get(id);
  if (!r) refs.set(id, (r = ref(ctx, f.target(), id)));
  return r;
}

export function ids(rows: Row[], column: string): string[] {
  return [...new Set(rows.map((r) => r[column]).filter(Boolean).map(String))];
}


/** A natural key value's slug and its separator; nothing for a missing value. */
const slugPart = (v: unknown): string => (v === null || v === undefined ? '' : `${slugify(v)}_`);

/** slugPart of a value that recurs across a batch (a related object's name, an ancestor's), kept in `memo`. */
function sharedSlugPart(v: unknown, memo: Map<unknown, string>): string {
  let part = memo.get(v);
  if (part === undefined) memo.set(v, (part = slugPart(v)));
  return part;
}

/**
 * The slugs of the natural key values (a tree: the name, then the ancestors from the nearest up),
 * each followed by `_`, then the first four characters of the id: a scalar as stored, a foreign
 * key by the target's name. Built as one string: a page makes one per object.
 */
export function naturalSlug(def: ResourceDefinition, row: Row, h: DisplayHelpers, ctx: RequestContext, memo: Map<unknown, string>): string {
  const id = String(row.id);
  if (def.naturalKey.length === 1 && def.naturalKey[0] === 'id') return `${slugify(id)}_${id.slice(0, 4)}`;
  let out = '';
  if (def.tree) {
    out = slugPart(row.name);
    for (let i = h.ancestors.length - 1; i >= 0; i--) out += sharedSlugPart(h.ancestors[i], memo);
  } else {
    for (const name of def.naturalKey) {
      const f = def.fields[name];
      if (!f) out += slugPart(row[name]);
      else if (f.kind === 'fk') {
        const r = h.related(name);
        out += r ? sharedSlugPart(r.name ?? r.id, memo) : '';
      } else if (f.kind === 'composite' || f.kind === 'computed') out += slugPart(f.read(row, ctx));
      else if (f.kind === 'scalar') out += slugPart(row[f.column]);
    }
  }
  return out + id.slice(0, 4);
}
