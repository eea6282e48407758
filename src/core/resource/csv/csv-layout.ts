import type { Executor, Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import { unscoped } from '../query/rows';
import { visibleRows } from '../query/scope';
import type { RequestContext } from '../../context';
import type { ExtensionCsvColumn, ModelExtension } from '../extension';
import { naturalFilterField } from '../query/lookups';
import { NO_OBJECT, NULL } from './csv-cells';
import { objectType, ResourceDefinition } from '../definition';
import type { Field, ForeignKeyField, GenericForeignKeyField, ManyToManyField } from '../fields';
import { naturalKeyLookups } from '../serialize/references';
import { append } from '../../collections';


/** One CSV column: a representation key, or a natural-key path through a foreign key. */
export type Column =
  | { kind: 'value'; header: string; key: string }
  | { kind: 'natural'; header: string; field: string; path: string[] }
  /** A natural-key path of a generic relation: filled for rows whose target is one of `types`. */
  | { kind: 'generic'; header: string; field: string; path: string[]; types: Set<string> }
  /** The names of a many-to-many field's targets (tags). */
  | { kind: 'names'; header: string; field: ManyToManyField }
  /** An extension's column (custom fields). */
  | { kind: 'ext'; header: string; ext: ModelExtension; column: ExtensionCsvColumn };

/** Longest ancestor chain in a tree table (so natural-key columns reach the deepest node). */
export async function maxTreeDepth(exec: Executor, def: ResourceDefinition): Promise<number> {
  const parent = (def.fields[def.tree!.parent] as ForeignKeyField).column;
  // The tree's shape, hidden objects included: the columns do not depend on who reads them.
  const [r] = await exec.query<{ d: number | null }>(sql`WITH RECURSIVE walk (id, lvl) AS (
      SELECT ${ident('id')}, 0 ${unscoped(def).from(sql`${ident(parent)} IS NULL`)}
      UNION ALL SELECT c.${ident('id')}, walk.lvl + 1 FROM ${unscoped(def, 'c').table} JOIN walk ON c.${ident(parent)} = walk.id
    ) SELECT MAX(lvl) AS d FROM walk`);
  return Number(r?.d ?? 0);
}

/** Natural-key lookup paths of a foreign key's target (trees: name, parent__name, ... to max depth). */
export async function targetLookups(exec: Executor, target: ResourceDefinition, depthCache: Map<ResourceDefinition, number>): Promise<string[][]> {
  if (target.tree) {
    if (!depthCache.has(target)) depthCache.set(target, await maxTreeDepth(exec, target));
    const depth = depthCache.get(target)!;
    return Array.from({ length: depth + 1 }, (_, i) => [...Array(i).fill(target.tree!.parent), 'name']);
  }
  return naturalKeyLookups(target).map((l) => l.split('__'));
}

/** The column layout of a model's CSV: name, display, id first; then fields; extensions' columns last. */
export async function csvColumns(ctx: RequestContext, exec: Executor, def: ResourceDefinition, visible: (f: Field) => boolean): Promise<Column[]> {
  const cols: Column[] = [];
  const depthCache = new Map<ResourceDefinition, number>();
  const front: Column[] = [];
  if (def.fields.name) front.push({ kind: 'value', header: 'name', key: 'name' });
  front.push({ kind: 'value', header: 'display', key: 'display' }, { kind: 'value', header: 'id', key: 'id' });
  cols.push({ kind: 'value', header: 'object_type', key: 'object_type' }, { kind: 'value', header: 'natural_slug', key: 'natural_slug' });
  if (def.tree) cols.push({ kind: 'value', header: 'tree_depth', key: 'tree_depth' });
  const trailing: Column[] = [];
  for (const f of Object.values(def.fields)) {
    if (f.name === 'name' || f.writeOnly || !visible(f)) continue;
    if (f.kind === 'fk') {
      for (const path of await targetLookups(exec, f.target(), depthCache)) cols.push({ kind: 'natural', header: [f.name, ...path].join('__'), field: f.name, path });
    } else if (f.kind === 'gfk') {
      // `<name>_type`, then the union of the natural keys of every type it may point to.
      cols.push({ kind: 'value', header: f.typeKey!, key: f.typeKey! });
      const byHeader = new Map<string, Extract<Column, { kind: 'generic' }>>();
      for (const target of ctx.registry.all().filter((d) => !f.allowed || f.allowed(d))) {
        for (const path of await targetLookups(exec, target, depthCache)) {
          const header = [f.name, ...path].join('__');
          if (!byHeader.has(header)) byHeader.set(header, { kind: 'generic', header, field: f.name, path, types: new Set() });
          byHeader.get(header)!.types.add(objectType(target));
        }
      }
      cols.push(...byHeader.values());
    } else if (f.kind === 'm2m') {
      // Other many-to-many fields are written through their own endpoints, as the reference does.
      if (f.csvNames) (f.trailing ? trailing : cols).push({ kind: 'names', header: f.name, field: f });
    } else {
      cols.push({ kind: 'value', header: f.name, key: f.name });
    }
  }
  cols.push({ kind: 'value', header: 'created', key: 'created' }, { kind: 'value', header: 'last_updated', key: 'last_updated' }, ...trailing);
  for (const ext of ctx.registry.extensionsOf(def)) {
    for (const column of (await ext.csv?.columns({ ctx, exec, def })) ?? []) cols.push({ kind: 'ext', header: column.header, ext, column });
  }
  return [...front, ...cols];
}

/**
 * The names of the targets of a many-to-many field, per object; a target the requester may not
 * view is written as its id, as JSON shows it only as a reference.
 */
export async function linkedNames(ctx: RequestContext, exec: Executor, def: ResourceDefinition, f: ManyToManyField, ids: string[]): Promise<Map<string, string[]>> {
  const target = f.target();
  const nameCol = naturalFilterField(target) ?? 'id';
  const th = f.through;
  // Every linked target is joined; the hidden ones are marked, and written as their ids.
  const visible = (await visibleRows(ctx, exec, target, 'tg')).visible;
  const disc = th.discriminator ? sql` AND ti.${ident(th.discriminator)} = ${objectType(def)}` : sql``;
  const rows = await exec.query<{ object_id: string; name: string; target_id: string; visible: unknown }>(
    sql`SELECT ti.${ident(th.source)} AS object_id, tg.${ident(nameCol)} AS name, tg.${ident('id')} AS target_id, CASE WHEN ${visible} THEN 1 ELSE 0 END AS visible
        FROM ${ident(th.table)} ti ${unscoped(target, 'tg').join(sql`tg.${ident('id')} = ti.${ident(th.target)}`)}
        WHERE ${inList(ident('ti', th.source), ids)}${disc} ORDER BY tg.${ident(nameCol)}`,
  );
  const out = new Map<string, string[]>();
  rows.forEach((r) => append(out, String(r.object_id), Number(r.visible) === 1 ? String(r.name) : String(r.target_id)));
  return out;
}

/**
 * Values of natural-key paths for the foreign keys (and generic relations) of a batch of rows:
 * one query per target model per path level, never one per row.
 */
export async function naturalValues(ctx: RequestContext, exec: Executor, def: ResourceDefinition, rows: Row[], columns: Column[]): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>(rows.map((r) => [String(r.id), new Map()]));
  const nat = columns.filter((c): c is Extract<Column, { kind: 'natural' | 'generic' }> => c.kind === 'natural' || c.kind === 'generic');
  const byField = new Map<string, typeof nat>();
  for (const c of nat) append(byField, c.field, c);
  for (const [fieldName, cols] of byField) {
    const f = def.fields[fieldName];
    if (f.kind === 'fk') {
      await fill(rows, f.target(), cols, (r) => r[f.column]);
    } else if (f.kind === 'gfk') {
      // Cells of paths that are not the row's type's natural key stay empty.
      for (const r of rows) for (const c of cols) out.get(String(r.id))!.set(c.header, '');
      const byType = new Map<string, Row[]>();
      for (const r of rows) {
        const type = r[(f as GenericForeignKeyField).typeColumn];
        if (type) append(byType, String(type), r);
        else for (const c of cols) out.get(String(r.id))!.set(c.header, NO_OBJECT);
      }
      for (const [type, typed] of byType) {
        const target = ctx.registry.get(type);
        if (target) await fill(typed, target, cols.filter((c) => c.kind === 'generic' && c.types.has(type)), (r) => r[(f as GenericForeignKeyField).idColumn]);
      }
    }
  }
  return out;

  /** Writes the cells of `cols` (paths into `target`) for rows pointing at `start(row)`. */
  async function fill(batch: Row[], target: ResourceDefinition, cols: typeof nat, start: (r: Row) => unknown): Promise<void> {
    const starts = new Map(batch.map((r) => [String(r.id), start(r) ? String(start(r)) : null]));
    const targetIds = [...new Set([...starts.values()].filter((v): v is string => !!v))];
    const visible = await visibleIds(ctx, exec, target, targetIds);
    const values = await resolvePaths(ctx, exec, target, targetIds.filter((i) => visible.has(i)), cols.map((c) => c.path));
    for (const r of batch) {
      const s = starts.get(String(r.id));
      const m = out.get(String(r.id))!;
      cols.forEach((c, i) => {
        if (!s) m.set(c.header, NO_OBJECT);
        else if (!visible.has(s)) m.set(c.header, i === 0 ? s : NULL); // hidden: referenced by id only
        else m.set(c.header, values.get(s)?.get(c.path.join('__')) ?? NULL);
      });
    }
  }
}

/** Which of the ids the requester may view. */
async function visibleIds(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const visible = await visibleRows(ctx, exec, def, 'v');
  const rows = await exec.query<{ id: string }>(sql`SELECT v.${ident('id')} AS id ${visible.from(inList(ident('v', 'id'), ids))}`);
  return new Set(rows.map((r) => String(r.id)));
}

/**
 * For objects of `def` by id (all visible to the requester): the cell at each path
 * (`parent__name`, `namespace__name`): the value, NULL for a null value, NoObject past a
 * missing related object. A hop into an object the requester may not view yields NULL for
 * every path through it, so no hidden name is written.
 */
async function resolvePaths(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: string[], paths: string[][]): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>(ids.map((i) => [i, new Map()]));
  if (!ids.length) return out;
  // The ids are of visible objects (above).
  const rows = await exec.query(sql`SELECT * ${unscoped(def).from(inList(ident('id'), ids))}`);
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  const deeper = new Map<string, string[][]>();
  for (const p of paths) {
    const [head, ...rest] = p;
    const f = def.fields[head];
    if (!rest.length) {
      for (const id of ids) {
        const r = byId.get(id);
        out.get(id)!.set(p.join('__'), (r ? leafValue(f, head, r) : null) ?? NULL);
      }
    } else append(deeper, head, rest);
  }
  for (const [head, rests] of deeper) {
    const f = def.fields[head] as ForeignKeyField;
    const next = new Map(ids.map((id) => [id, byId.get(id)?.[f.column] ? String(byId.get(id)![f.column]) : null]));
    const nextIds = [...new Set([...next.values()].filter((v): v is string => !!v))];
    const shown = await visibleIds(ctx, exec, f.target(), nextIds);
    const sub = await resolvePaths(ctx, exec, f.target(), nextIds.filter((i) => shown.has(i)), rests);
    for (const id of ids) {
      const n = next.get(id);
      for (const r of rests) out.get(id)!.set([head, ...r].join('__'), n ? (sub.get(n)?.get(r.join('__')) ?? NULL) : NO_OBJECT);
    }
  }
  return out;
}

function leafValue(f: Field | undefined, name: string, row: Row): string | null {
  if (!f) return row[name] === null || row[name] === undefined ? null : String(row[name]);
  if (f.kind === 'scalar') return row[f.column] === null || row[f.column] === undefined ? null : String(row[f.column]);
  if (f.kind === 'composite' || f.kind === 'computed') {
    const v = f.read(row, undefined as never);
    return v === null || v === undefined ? null : String(v);
  }
  if (f.kind === 'fk') return row[f.column] ? String(row[f.column]) : null;
  return null;
}
