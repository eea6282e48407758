import type { WriteContext } from '../../core/resource/definition';
import type { Sql } from '../../database/sql';
import { ident, inList, join, sql } from '../../database/sql';
import { modulePlaces, renderModuleName } from './module-tree';
import { naturalize } from './resources/naturalize';

/** The tables of the components a module has (its module bays aside: their names are never rendered). */
const COMPONENT_TABLES = ['dcim_consoleport', 'dcim_consoleserverport', 'dcim_powerport', 'dcim_poweroutlet', 'dcim_interface', 'dcim_rearport', 'dcim_frontport'];

/** The modules and every module below them (in their bays, at any depth): one statement per level. */
async function withDescendants(w: WriteContext, ids: string[]): Promise<string[]> {
  const all = new Set(ids);
  let level = ids;
  for (let guard = 0; level.length && guard < 64; guard++) {
    const rows = await w.exec.query<{ id: string }>(
      sql`SELECT m.${ident('id')} AS ${ident('id')} FROM ${ident('dcim_module')} m JOIN ${ident('dcim_modulebay')} b ON b.${ident('id')} = m.${ident('parent_module_bay_id')} WHERE ${inList(ident('b', 'parent_module_id'), level)}`,
    );
    level = rows.map((r) => String(r.id)).filter((id) => !all.has(id));
    for (const id of level) all.add(id);
  }
  return [...all];
}

/**
 * Fills in the `{module}` variables still left in the names of the components of modules that
 * moved to another bay, and of the modules below them (the reference's render_component_names):
 * one read per component table and one UPDATE per table with something to rename.
 */
export async function renderModuleNames(w: WriteContext, moduleIds: string[]): Promise<void> {
  if (!moduleIds.length) return;
  const modules = await withDescendants(w, moduleIds);
  const places = await modulePlaces(w.exec, modules);
  const now = w.exec.dialect.toDb(w.ctx.now(), 'datetime');
  for (const table of COMPONENT_TABLES) {
    const rows = await w.exec.query<{ id: string; name: string; module_id: string }>(
      sql`SELECT ${ident('id')}, ${ident('name')}, ${ident('module_id')} FROM ${ident(table)} WHERE ${inList(ident('module_id'), modules)} AND ${ident('name')} LIKE ${'%{module%'}`,
    );
    const renamed = rows.map((r) => ({ id: String(r.id), name: renderModuleName(String(r.name), places.get(String(r.module_id))?.positions ?? []), old: String(r.name) })).filter((r) => r.name !== r.old);
    if (!renamed.length) continue;
    const cases = (value: (r: (typeof renamed)[number]) => string): Sql => sql`CASE ${ident('id')} ${join(renamed.map((r) => sql`WHEN ${r.id} THEN ${value(r)}`), ' ')} END`;
    await w.exec.execute(
      sql`UPDATE ${ident(table)} SET ${ident('name')} = ${cases((r) => r.name)}, ${ident('_name')} = ${cases((r) => naturalize(r.name, 255))}, ${ident('last_updated')} = ${now} WHERE ${inList(ident('id'), renamed.map((r) => r.id))}`,
    );
  }
}
