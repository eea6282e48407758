import type { RequestContext } from '../../../core/context';
import type { ResourceDefinition } from '../../../core/resource/definition';
import type { Executor, Row } from '../../../database/db';
import type { Field, ForeignKeyField, ScalarField } from '../../../core/resource/fields';
import { visibleRows } from '../../../core/resource/query/scope';
import { formatDateTime } from '../../../core/resource/query/values';
import { parseJsonObject, readScalar } from '../../../core/resource/serialize/values';
import { ident, inList, sql } from '../../../database/sql';
import { CUSTOM_FIELD_COLUMN } from '../custom-fields/filter';

/**
 * What templates read below `obj`: each name they follow, and what they read below it (`*`: a
 * name not known before rendering; `''`: the value itself is used whole, `{{ obj.location }}`).
 */
export type PathTree = Map<string, PathTree>;

/** The key that marks a value used whole (every field of an object is built). */
const WHOLE = '';

/** How many related objects deep a template may reach (`obj.location.parent.parent.name`). */
export const MAX_HOPS = 3;

type Obj = Record<string, unknown>;

/** Adds paths (without their leading `obj`) to a tree. */
export function addPath(tree: PathTree, path: string[]): void {
  let node = tree;
  for (const name of path) {
    let next = node.get(name);
    if (!next) node.set(name, (next = new Map()));
    node = next;
  }
  node.set(WHOLE, new Map());
}

/**
 * The objects templates see as `obj`, for a batch of rows: what a Nautobot user writes works.
 * Each field as stored (a choice as its value, as Django gives it), `<fk>_id`, `cf` (and
 * `custom_field_data`) with the custom field data, and each foreign key that the templates
 * follow as the related object, loaded within the requester's view (a hidden one is null):
 * one statement per related model per hop, whatever the number of rows. Only plain JSON data,
 * so a template reaches nothing but data.
 */
export async function templateObjects(ctx: RequestContext, exec: Executor, def: ResourceDefinition, rows: Row[], tree: PathTree, hop = 0): Promise<Map<string, Obj>> {
  const out = new Map<string, Obj>();
  const fields = wanted(def, tree);
  for (const row of rows) out.set(String(row.id), plain(ctx, def, row, fields, tree));
  if (hop >= MAX_HOPS || !rows.length) return out;
  // The foreign keys the templates follow, by target: one load per target model.
  const byTarget = new Map<ResourceDefinition, { fields: ForeignKeyField[]; ids: Set<string>; tree: PathTree }>();
  for (const f of Object.values(def.fields)) {
    if (f.kind !== 'fk' || f.writeOnly) continue;
    const below = tree.get(f.name) ?? (tree.has('*') ? new Map([[WHOLE, new Map()]]) : undefined);
    if (!below) continue;
    const target = f.target();
    const entry = byTarget.get(target) ?? { fields: [] as ForeignKeyField[], ids: new Set<string>(), tree: new Map() as PathTree };
    entry.fields.push(f);
    for (const r of rows) if (r[f.column]) entry.ids.add(String(r[f.column]));
    merge(entry.tree, below);
    byTarget.set(target, entry);
  }
  await Promise.all(
    [...byTarget].map(async ([target, entry]) => {
      if (!entry.ids.size) return;
      const visible = await visibleRows(ctx, exec, target, 'r');
      const related = await exec.query(sql`SELECT r.* ${visible.from(inList(ident('r', 'id'), [...entry.ids]))}`);
      const objects = await templateObjects(ctx, exec, target, related, entry.tree, hop + 1);
      for (const row of rows) {
        const o = out.get(String(row.id))!;
        for (const f of entry.fields) o[f.name] = row[f.column] ? (objects.get(String(row[f.column])) ?? null) : null;
      }
    }),
  );
  return out;
}

function merge(into: PathTree, from: PathTree): void {
  for (const [name, below] of from) {
    const mine = into.get(name);
    if (mine) merge(mine, below);
    else into.set(name, below);
  }
}

/** The fields templates read of a model's objects (all of them when one is used whole or through a variable key). */
function wanted(def: ResourceDefinition, tree: PathTree): Field[] {
  const all = tree.has(WHOLE) || tree.has('*');
  return Object.values(def.fields).filter((f) => !f.writeOnly && (all || tree.has(f.name) || (f.kind === 'fk' && tree.has(`${f.name}_id`))));
}

const CF_NAMES = ['cf', 'custom_field_data', '_custom_field_data'];

const choiceless = new WeakMap<ScalarField, ScalarField>();
/** A scalar field read as its stored value (a choice's value, not its `{value, label}`): one copy per field, not per row. */
function withoutChoices(f: ScalarField): ScalarField {
  let plainField = choiceless.get(f);
  if (!plainField) choiceless.set(f, (plainField = { ...f, choices: undefined }));
  return plainField;
}

/** One row as plain data: the fields given, and the standard keys the tree names. */
function plain(ctx: RequestContext, def: ResourceDefinition, row: Row, fields: Field[], tree: PathTree): Obj {
  const all = tree.has(WHOLE) || tree.has('*');
  const o: Obj = { id: String(row.id) };
  for (const f of fields) {
    try {
      if (f.kind === 'scalar') o[f.name] = data(readScalar(withoutChoices(f), row[f.column]));
      else if (f.kind === 'fk') {
        o[`${f.name}_id`] = row[f.column] ? String(row[f.column]) : null;
        o[f.name] = null;
      } else if (f.kind === 'composite' || (f.kind === 'computed' && !f.load && !f.reverse && f.columns.length)) o[f.name] = data(f.read(row, ctx));
    } catch {
      // A value that cannot be read is absent for templates, never a failed page.
    }
  }
  if ('created' in row && (all || tree.has('created'))) o.created = formatDateTime(row.created);
  if ('last_updated' in row && (all || tree.has('last_updated'))) o.last_updated = formatDateTime(row.last_updated);
  if (CUSTOM_FIELD_COLUMN in row && (all || CF_NAMES.some((n) => tree.has(n)))) {
    const cf = data(parseJsonObject(row[CUSTOM_FIELD_COLUMN]));
    o.cf = cf;
    o.custom_field_data = cf;
    o._custom_field_data = cf;
  }
  return o;
}

/** A value as plain JSON data (anything else as its text): nothing a template could call. */
function data(v: unknown, depth = 0): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (depth > 20) return null;
  if (Array.isArray(v)) return v.map((x) => data(x, depth + 1));
  if (typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
    const o: Obj = {};
    for (const [k, x] of Object.entries(v)) o[k] = data(x, depth + 1);
    return o;
  }
  return typeof v === 'bigint' ? Number(v) : String(v);
}
