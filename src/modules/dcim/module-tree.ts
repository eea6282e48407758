import { CustomFilter, CustomFilterHelpers, model, WriteContext } from '../../core/resource/definition';
import type { Executor } from '../../database/db';
import { ident, inList, join, raw, Sql, sql } from '../../database/sql';

/**
 * How deep modules nest below a device for the reference's device lookups (Device.all_modules,
 * the module `device` filter): Device -> bay -> Module -> bay -> Module ... four modules deep
 * (MODULE_RECURSION_DEPTH_LIMIT). Components' `device` filter reaches one level less, as the
 * reference's does.
 */
export const MODULE_DEPTH = 4;

const M = (n: number) => `m${n}`;
const B = (n: number) => `b${n}`;

/** What the module tree's filters read: the rows the requester may view (all of them in a permission constraint). */
type ReadRows = Pick<CustomFilterHelpers, 'rows'>;
const moduleDef = model('dcim.module');
const bayDef = model('dcim.modulebay');

/**
 * A sub-select of the ids of the modules installed in the devices, directly or in modules
 * installed in them, down to `depth` levels: one branch per level, each a chain of joins up to
 * the device's bay (no recursion, as the reference's fixed-depth Q objects). Every module and
 * bay on the way is one the requester may view: a chain through a hidden one matches nothing.
 */
export async function modulesInDevices(h: ReadRows, deviceIds: readonly string[] | Sql, depth: number): Promise<Sql> {
  const bay = ident(B(1), 'parent_device_id');
  // A list of ids, or a sub-select of them (parenthesised, as `Rows.select` gives).
  const within = Array.isArray(deviceIds) ? inList(bay, deviceIds as readonly string[]) : sql`${bay} IN ${deviceIds as Sql}`;
  const levels: Sql[] = [];
  for (let level = 1; level <= depth; level++) {
    // The module at this level (m<level>) up to the module in the device's own bay (m1).
    const joins: Sql[] = [];
    for (let k = level; k >= 1; k--) {
      joins.push(sql` ${(await h.rows(bayDef(), B(k))).join(sql`${ident(B(k), 'id')} = ${ident(M(k), 'parent_module_bay_id')}`)}`);
      if (k > 1) joins.push(sql` ${(await h.rows(moduleDef(), M(k - 1))).join(sql`${ident(M(k - 1), 'id')} = ${ident(B(k), 'parent_module_id')}`)}`);
    }
    levels.push(sql`SELECT ${ident(M(level), 'id')} ${(await h.rows(moduleDef(), M(level))).fromJoined(join(joins, ''), within)}`);
  }
  return join(levels, ' UNION ALL ');
}

/** Each module's chain upwards: its bay's position, the parent module's bay's, ..., and the device it ends in (null: in storage). */
export interface ModulePlace {
  device: string | null;
  /** Positions of the bays from the module's own up to the device's (blank ones included). */
  positions: string[];
}

/**
 * Where modules are: for each, the device its chain of bays ends in and the bays' positions,
 * read level by level for the whole batch (one statement per level of nesting).
 */
export async function modulePlaces(exec: Executor, moduleIds: readonly string[]): Promise<Map<string, ModulePlace>> {
  const out = new Map<string, ModulePlace>();
  // The module whose chain each lookup continues: lookup module id -> origin ids.
  let frontier = new Map<string, string[]>();
  for (const id of new Set(moduleIds.map(String))) {
    out.set(id, { device: null, positions: [] });
    frontier.set(id, [id]);
  }
  for (let guard = 0; frontier.size && guard < 64; guard++) {
    const rows = await exec.query<{ id: string; position: string | null; parent_device_id: string | null; parent_module_id: string | null }>(
      sql`SELECT m.${ident('id')} AS ${ident('id')}, b.${ident('position')} AS ${ident('position')}, b.${ident('parent_device_id')} AS ${ident('parent_device_id')}, b.${ident('parent_module_id')} AS ${ident('parent_module_id')}
          FROM ${ident('dcim_module')} m LEFT JOIN ${ident('dcim_modulebay')} b ON b.${ident('id')} = m.${ident('parent_module_bay_id')} WHERE ${inList(raw('m.id'), [...frontier.keys()])}`,
    );
    const next = new Map<string, string[]>();
    for (const r of rows) {
      const origins = frontier.get(String(r.id)) ?? [];
      for (const o of origins) {
        const place = out.get(o)!;
        if (r.position !== null && r.position !== undefined) place.positions.push(String(r.position));
        if (r.parent_device_id) place.device = String(r.parent_device_id);
      }
      if (r.parent_module_id) next.set(String(r.parent_module_id), [...(next.get(String(r.parent_module_id)) ?? []), ...origins]);
    }
    frontier = next;
  }
  return out;
}

/** The device a module is installed in at any depth (null in storage): once per module and request. */
export function moduleDevice(w: WriteContext, moduleId: unknown): Promise<string | null> {
  return w.ctx.memo(`dcim.module-device:${moduleId}`, async () => (await modulePlaces(w.exec, [String(moduleId)])).get(String(moduleId))?.device ?? null);
}

/** The device a component belongs to (the reference's `parent`): its own, or its module's. */
export async function componentDevice(w: WriteContext, row: { device_id?: unknown; module_id?: unknown }): Promise<string | null> {
  if (row.device_id) return String(row.device_id);
  if (row.module_id) return moduleDevice(w, row.module_id);
  return null;
}

/**
 * Replaces `{module}`, `{module.parent}`, ... in a component's name with the positions of the
 * bays above its module, nearest first, skipping blank ones; a variable with no position left
 * stays as it is (the reference's render_name_template).
 */
export function renderModuleName(name: string, positions: readonly string[]): string {
  if (!name.includes('{module')) return name;
  const filled = positions.filter((p) => p);
  return name
    .split(/({module(?:\.parent)*})/)
    .map((part) => {
      if (!/^{module(\.parent)*}$/.test(part)) return part;
      const depth = (part.match(/\.parent/g) ?? []).length;
      return depth < filled.length ? filled[depth] : part;
    })
    .join('');
}

/**
 * What an object holding module bays (a device, a module) filters by: `has_modules` (a module
 * is installed in one of its bays) and `has_empty_module_bays` (the reference's: true, a bay
 * without a module; false, no bay at all or a bay with one). `bayColumn` is the bays' column
 * naming the holder.
 */
export function moduleHolderFilters(bayColumn: 'parent_device_id' | 'parent_module_id'): Record<string, CustomFilter> {
  // The holders of bays the requester may view, with (or without) a module they may view installed.
  const bays = async (h: ReadRows, installed: boolean | null) => {
    const b = await h.rows(bayDef(), 'b');
    const m = await h.rows(moduleDef(), 'm');
    const module = installed === null ? null : sql`${installed ? sql`` : sql`NOT `}EXISTS (SELECT 1 ${m.from(sql`m.${ident('parent_module_bay_id')} = b.${ident('id')}`)})`;
    return b.select(bayColumn, sql`b.${ident(bayColumn)} IS NOT NULL`, module);
  };
  return {
    has_modules: { boolean: true, compile: async (values, _l, h) => (values[values.length - 1] ? sql`${h.col('id')} IN ${await bays(h, true)}` : sql`${h.col('id')} NOT IN ${await bays(h, true)}`) },
    has_empty_module_bays: {
      boolean: true,
      compile: async (values, _l, h) => (values[values.length - 1] ? sql`${h.col('id')} IN ${await bays(h, false)}` : sql`(${h.col('id')} NOT IN ${await bays(h, null)} OR ${h.col('id')} IN ${await bays(h, true)})`),
    },
  };
}
