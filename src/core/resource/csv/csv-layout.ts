import type { Executor, Row } from '../../../database/db';
import { and, ident, inList, sql } from '../../../database/sql';
import { scopeCondition } from '../query/scope';
import type { RequestContext } from '../../context';
import type { CustomFieldDefinition, CustomFieldType } from '../custom-fields';
import type { ResourceDefinition } from '../definition';
import type { Field, ForeignKeyField } from '../fields';
import { naturalKeyLookups } from '../serialize/references';

export const NULL = 'NULL';
export const NO_OBJECT = 'NoObject';

/** One CSV column: a representation key, or a natural-key path through a foreign key. */
export type Column =
  | { kind: 'value'; header: string; key: string }
  | { kind: 'natural'; header: string; field: string; path: string[] }
  | { kind: 'tags'; header: string }
  | { kind: 'cf'; header: string; key: string; type: CustomFieldType };

/** Longest ancestor chain in a tree table (so natural-key columns reach the deepest node). */
export async function maxTreeDepth(exec: Executor, def: ResourceDefinition): Promise<number> {
  const parent = (def.fields[def.tree!.parent] as ForeignKeyField).column;
  const [r] = await exec.query<{ d: number | null }>(sql`WITH RECURSIVE walk (id, lvl) AS (
      SELECT ${ident('id')}, 0 FROM ${ident(def.table)} WHERE ${ident(parent)} IS NULL
      UNION ALL SELECT c.${ident('id')}, walk.lvl + 1 FROM ${ident(def.table)} c JOIN walk ON c.${ident(parent)} = walk.id
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

/** The column layout of a model's CSV: name, display, id first; then fields; cf_ columns last. */
export async function csvColumns(ctx: RequestContext, exec: Executor, def: ResourceDefinition, cfs: CustomFieldDefinition[], visible: (f: Field) => boolean): Promise<Column[]> {
  const cols: Column[] = [];
  const depthCache = new Map<ResourceDefinition, number>();
  const front: Column[] = [];
  if (def.fields.name) front.push({ kind: 'value', header: 'name', key: 'name' });
  front.push({ kind: 'value', header: 'display', key: 'display' }, { kind: 'value', header: 'id', key: 'id' });
  cols.push({ kind: 'value', header: 'object_type', key: 'object_type' }, { kind: 'value', header: 'natural_slug', key: 'natural_slug' });
  if (def.tree) cols.push({ kind: 'value', header: 'tree_depth', key: 'tree_depth' });
  for (const f of Object.values(def.fields)) {
    if (f.name === 'name' || f.name === 'tags' || f.writeOnly || !visible(f)) continue;
    if (f.kind === 'fk') {
      for (const path of await targetLookups(exec, f.target(), depthCache)) cols.push({ kind: 'natural', header: [f.name, ...path].join('__'), field: f.name, path });
    } else if (f.kind === 'gfk') {
      cols.push({ kind: 'value', header: `${f.name}_type`, key: `${f.name}_type` }, { kind: 'value', header: `${f.name}_id`, key: `${f.name}_id` });
    } else if (f.kind === 'm2m') {
      continue; // many-to-many other than tags and content types is managed elsewhere
    } else {
      cols.push({ kind: 'value', header: f.name, key: f.name });
    }
  }
  cols.push({ kind: 'value', header: 'created', key: 'created' }, { kind: 'value', header: 'last_updated', key: 'last_updated' });
  if (def.fields.tags) cols.push({ kind: 'tags', header: 'tags' });
  for (const cf of [...cfs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) cols.push({ kind: 'cf', header: `cf_${cf.key}`, key: cf.key, type: cf.type });
  void ctx;
  return [...front, ...cols];
}

/**
 * Values of natural-key paths for the foreign keys of a batch of rows: one query per target
 * model per path level, never one per row.
 */
export async function naturalValues(ctx: RequestContext, exec: Executor, def: ResourceDefinition, rows: Row[], columns: Column[]): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>(rows.map((r) => [String(r.id), new Map()]));
  const nat = columns.filter((c): c is Extract<Column, { kind: 'natural' }> => c.kind === 'natural');
  const byField = new Map<string, string[][]>();
  nat.forEach((c) => byField.set(c.field, [...(byField.get(c.field) ?? []), c.path]));
  for (const [fieldName, paths] of byField) {
    const f = def.fields[fieldName] as ForeignKeyField;
    const starts = new Map(rows.map((r) => [String(r.id), r[f.column] ? String(r[f.column]) : null]));
    const targetIds = [...new Set([...starts.values()].filter((v): v is string => !!v))];
    const visible = await visibleIds(ctx, exec, f.target(), targetIds);
    const values = await resolvePaths(ctx, exec, f.target(), targetIds.filter((i) => visible.has(i)), paths);
    for (const r of rows) {
      const start = starts.get(String(r.id));
      const m = out.get(String(r.id))!;
      for (const [pi, p] of paths.entries()) {
        const header = [fieldName, ...p].join('__');
        if (!start) m.set(header, NO_OBJECT);
        else if (!visible.has(start)) m.set(header, pi === 0 ? start : NULL); // hidden: referenced by id only
        else {
          const v = values.get(start)?.get(p.join('__'));
          m.set(header, v === undefined || v === null ? NULL : v);
        }
      }
    }
  }
  return out;
}

/** Which of the ids the requester may view. */
async function visibleIds(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const scope = await scopeCondition(ctx, exec, def, 'view', 'v');
  const rows = await exec.query<{ id: string }>(sql`SELECT v.${ident('id')} AS id FROM ${ident(def.table)} v WHERE ${and([inList(ident('v', 'id'), ids), scope])}`);
  return new Set(rows.map((r) => String(r.id)));
}

/**
 * For objects of `def` by id (all visible to the requester): the value at each path
 * (`parent__name`, `namespace__name`). A hop into an object the requester may not view yields
 * NULL for every path through it, so no hidden name is written.
 */
async function resolvePaths(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: string[], paths: string[][]): Promise<Map<string, Map<string, string | null>>> {
  const out = new Map<string, Map<string, string | null>>(ids.map((i) => [i, new Map()]));
  if (!ids.length) return out;
  const rows = await exec.query(sql`SELECT * FROM ${ident(def.table)} WHERE ${inList(ident('id'), ids)}`);
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  const deeper = new Map<string, string[][]>();
  for (const p of paths) {
    const [head, ...rest] = p;
    const f = def.fields[head];
    if (!rest.length) {
      for (const id of ids) {
        const r = byId.get(id);
        out.get(id)!.set(p.join('__'), r ? leafValue(f, head, r) : null);
      }
    } else deeper.set(head, [...(deeper.get(head) ?? []), rest]);
  }
  for (const [head, rests] of deeper) {
    const f = def.fields[head] as ForeignKeyField;
    const next = new Map(ids.map((id) => [id, byId.get(id)?.[f.column] ? String(byId.get(id)![f.column]) : null]));
    const nextIds = [...new Set([...next.values()].filter((v): v is string => !!v))];
    const shown = await visibleIds(ctx, exec, f.target(), nextIds);
    const sub = await resolvePaths(ctx, exec, f.target(), nextIds.filter((i) => shown.has(i)), rests);
    for (const id of ids) {
      const n = next.get(id);
      for (const r of rests) out.get(id)!.set([head, ...r].join('__'), n ? (sub.get(n)?.get(r.join('__')) ?? null) : null);
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
