import { newId } from '../../ids';
import { ident, inList, join, Sql, sql } from '../../../database/sql';
import type { ColumnType, Dialect } from '../../../database/dialect';
import { objectType, ResourceDefinition } from '../definition';
import { noteCreated, unscoped } from '../query/rows';
import type { ContentTypesField, ManyToManyField } from '../fields';
import { columnTypes, storedColumns } from '../storage';
import { append } from '../../collections';
import { chunks, ID_CHUNK, Item, rowsPerStatement, same, WriteRun } from './item';
import { notifyChanges } from './observe';
import { state } from './resolve';

/**
 * The saving stage of a write: one INSERT per chunk, UPDATEs grouped by changed columns, then the
 * links; then the batch is told to the model's observers (the change log), unless `observed` is
 * false (objects derived from another, as the reference's bulk_create: they come with it).
 */
export async function save(run: WriteRun, def: ResourceDefinition, items: Item[], create: boolean, observed = true): Promise<void> {
  const states = items.map((i) => state(run, def, i, create));
  if (def.beforeSave) await def.beforeSave(states, run.w);
  const now = run.ctx.now();
  const columns = storedColumns(def);
  const types = columnTypes(def);
  const d = run.exec.dialect;
  if (create) {
    const columnTypesOf = columns.map((c) => types[c]);
    for (const item of items) {
      item.values.created = now;
      item.values.last_updated = now;
    }
    for (const chunk of chunks(items, rowsPerStatement(columns.length))) {
      const rows = chunk.map((it) => columns.map((c) => d.toDb(it.values[c] ?? null, types[c])));
      await run.exec.execute(sql`INSERT INTO ${unscoped(def).table} ${d.insertRows(columns, columnTypesOf, rows)}`);
    }
    noteCreated(run.exec, def, items.map((i) => i.id));
  } else {
    // Group rows by the set of changed columns: one statement per group.
    const groups = new Map<string, Item[]>();
    for (const item of items) {
      item.values.last_updated = now;
      const changed = columns.filter((c) => c !== 'id' && c !== 'created' && (c === 'last_updated' || c in item.set || !same(item.existing?.[c], item.values[c])));
      const key = changed.join(',');
      append(groups, key, item);
    }
    for (const [key, group] of groups) {
      const changed = key.split(',');
      // At most two parameters a changed column and row (CASE id WHEN ... THEN ...), and the id.
      for (const chunk of chunks(group, rowsPerStatement(1 + 2 * changed.length))) {
        const ids = chunk.map((it) => it.id);
        const assignments = changed.map((c) => perRow(d, c, types[c], chunk.map((it) => [it.id, it.values[c] ?? null])));
        await run.exec.execute(sql`UPDATE ${unscoped(def).table} SET ${join(assignments)} WHERE ${inList(ident('id'), ids)}`);
      }
    }
  }
  await saveMany(run, def, items, create);
  if (def.afterSave) await def.afterSave(items.map((i) => i.id), run.w, states);
  if (observed) await notifyChanges(run.ctx, run.exec, def, create ? 'create' : 'update', items.map((i) => ({ id: i.id, before: i.existing })));
}

export async function saveMany(run: WriteRun, def: ResourceDefinition, items: Item[], create: boolean): Promise<void> {
  for (const f of Object.values(def.fields)) {
    if (f.kind === 'm2m' && f.writable) await saveLinks(run, def, f, items, create, (i) => i.m2m.get(f.name));
    if (f.kind === 'contentTypes') await saveContentTypes(run, f, items, create);
  }
}

export async function saveLinks(run: WriteRun, def: ResourceDefinition, f: ManyToManyField, items: Item[], create: boolean, get: (i: Item) => string[] | undefined) {
  const touched = items.filter((i) => get(i) !== undefined);
  if (!touched.length) return;
  const th = f.through;
  const disc = th.discriminator;
  const through = disc ? undefined : run.ctx.registry.byTable(th.table);
  if (through) return saveModelLinks(run, through, f, touched, create, get);
  if (!create) {
    await run.exec.execute(
      sql`DELETE FROM ${ident(th.table)} WHERE ${inList(ident(th.source), touched.map((i) => i.id))}${disc ? sql` AND ${ident(disc)} = ${objectType(def)}` : sql``}`,
    );
  }
  const rows = touched.flatMap((i) => get(i)!.map((t) => (disc ? [i.id, t, objectType(def)] : [i.id, t])));
  const cols = disc ? [th.source, th.target, disc] : [th.source, th.target];
  // A link's ends are objects' ids, its discriminator a content type (storage.ts throughTable, extras' taggedItemTable).
  const types: ColumnType[] = disc ? ['uuid', 'uuid', 'string'] : ['uuid', 'uuid'];
  for (const chunk of chunks(rows, rowsPerStatement(cols.length))) {
    await run.exec.execute(sql`INSERT INTO ${ident(th.table)} ${run.exec.dialect.insertRows(cols, types, chunk)}`);
  }
}

/**
 * Links that are a through model's objects (a prefix's location assignments): the links that stay
 * keep their ids, those no longer wanted are deleted and the new ones inserted with the model's
 * standard columns, so the assignments' own endpoint sees a link changed only when it changed.
 */
async function saveModelLinks(run: WriteRun, model: ResourceDefinition, f: ManyToManyField, touched: Item[], create: boolean, get: (i: Item) => string[] | undefined) {
  const th = f.through;
  const key = (s: unknown, t: unknown) => `${s}|${t}`;
  const wanted = new Map(touched.flatMap((i) => get(i)!.map((t) => [key(i.id, t), [i.id, t]] as const)));
  const existing = create
    ? []
    : await run.exec.query<{ id: string; s: string; t: string }>(
        sql`SELECT ${ident('id')}, ${ident(th.source)} AS ${ident('s')}, ${ident(th.target)} AS ${ident('t')} FROM ${unscoped(model).table} WHERE ${inList(ident(th.source), touched.map((i) => i.id))}`,
      );
  const gone = existing.filter((r) => !wanted.has(key(r.s, r.t))).map((r) => String(r.id));
  for (const chunk of chunks(gone, ID_CHUNK)) await run.exec.execute(sql`DELETE FROM ${unscoped(model).table} WHERE ${inList(ident('id'), chunk)}`);
  for (const r of existing) wanted.delete(key(r.s, r.t));
  const now = run.ctx.now();
  const d = run.exec.dialect;
  const rows = [...wanted.values()].map(([s, t]) => [newId(), d.toDb(now, 'datetime'), d.toDb(now, 'datetime'), s, t]);
  const cols = ['id', 'created', 'last_updated', th.source, th.target];
  const types = columnTypes(model);
  for (const chunk of chunks(rows, rowsPerStatement(cols.length))) {
    await run.exec.execute(sql`INSERT INTO ${unscoped(model).table} ${d.insertRows(cols, cols.map((c) => types[c]), chunk)}`);
  }
}

export async function saveContentTypes(run: WriteRun, f: ContentTypesField, items: Item[], create: boolean) {
  const touched = items.filter((i) => i.contentTypes.has(f.name));
  if (!touched.length) return;
  if (!create) await run.exec.execute(sql`DELETE FROM ${ident(f.through.table)} WHERE ${inList(ident(f.through.source), touched.map((i) => i.id))}`);
  const rows = touched.flatMap((i) => i.contentTypes.get(f.name)!.map((ct) => [i.id, ct]));
  for (const chunk of chunks(rows, rowsPerStatement(2))) {
    await run.exec.execute(sql`INSERT INTO ${ident(f.through.table)} ${run.exec.dialect.insertRows([f.through.source, 'content_type'], ['uuid', 'string'], chunk)}`);
  }
}
/**
 * `<column> = <value>` for rows of one table that each get their own value in one UPDATE
 * (`CASE id WHEN ... THEN ... END`); the plain value where every row gets the same one (one row,
 * a bulk PATCH setting one description, `last_updated` always). For the engine's updates and
 * for hooks that keep columns of many rows (a cable's ends, a path's origins).
 */
export function perRow(d: Dialect, column: string, type: ColumnType, values: [id: string, value: unknown][]): Sql {
  const bound = values.map(([, v]) => d.toDb(v, type));
  if (bound.every((v) => sameBound(v, bound[0]))) return sql`${ident(column)} = ${bound[0]}`;
  return sql`${ident(column)} = CASE ${ident('id')}${join(values.map(([id], n) => sql` WHEN ${id} THEN ${d.typedParam(bound[n], type)}`), '')} END`;
}

/** Whether two values bound for the driver are the same value (anything but primitives, times and bytes: not known to be). */
function sameBound(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return false;
}
