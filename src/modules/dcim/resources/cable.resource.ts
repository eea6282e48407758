import { CustomFilter, defineResource, model, objectType, ResourceDefinition, WriteContext, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import type { Row } from '../../../database/db';
import { FALSE, ident, inList, join, sql } from '../../../database/sql';
import { append } from '../../../core/collections';
import { chunks } from '../../../core/resource/resource-writer';
import { perRow } from '../../../core/resource/write/save';
import { unscoped } from '../../../core/resource/query/rows';
import { column } from '../../../database/schema/schema';
import { statusMixin } from '../../extras/mixins';
import { CABLE_TERMINATIONS, PATH_ENDPOINTS, terminationOptions } from '../cabling/terminations';
import { originsThrough, PathNode, retrace } from '../cabling/paths';
import { CABLE_LENGTH_UNITS, CABLE_STATUSES, CABLE_TYPES, METERS_PER_UNIT } from '../choices';
import { INTERFACE_TYPES } from '../component-choices';
import { componentName } from './device-component';
import { modulePlaces } from '../module-tree';
import { NONCONNECTABLE_TYPES } from './interface.resource';

/** Which terminations a cable may join (Nautobot's COMPATIBLE_TERMINATION_TYPES), by model name. */
const COMPATIBLE: Record<string, string[]> = {
  circuittermination: ['interface', 'frontport', 'rearport', 'circuittermination'],
  consoleport: ['consoleserverport', 'frontport', 'rearport'],
  consoleserverport: ['consoleport', 'frontport', 'rearport'],
  interface: ['interface', 'circuittermination', 'frontport', 'rearport'],
  frontport: ['consoleport', 'consoleserverport', 'interface', 'frontport', 'rearport', 'circuittermination'],
  powerfeed: ['powerport'],
  poweroutlet: ['powerport'],
  powerport: ['poweroutlet', 'powerfeed'],
  rearport: ['consoleport', 'consoleserverport', 'interface', 'frontport', 'rearport', 'circuittermination'],
};

/** Apps' verbose names, as the reference's content types print ("DCIM | interface"). */
const APP_NAMES: Record<string, string> = { dcim: 'DCIM', circuits: 'Circuits' };
const contentTypeName = (def: ResourceDefinition | undefined, type: string) => `${APP_NAMES[def?.app ?? ''] ?? def?.app ?? type.split('.')[0]} | ${def?.verboseName ?? type.split('.')[1]}`;

const isTermination = (d: ResourceDefinition) => d.features.includes(CABLE_TERMINATIONS);
const INTERFACE_LABELS = new Map(INTERFACE_TYPES.map(([v, l]) => [String(v), l]));
const SIDES = ['a', 'b'] as const;

const end = (s: WriteState, side: 'a' | 'b'): PathNode | null => {
  const type = s.values[`termination_${side}_type`];
  const id = s.values[`termination_${side}_id`];
  return type && id ? { type: String(type), id: String(id) } : null;
};

/** The termination rows of a side for a batch, where the write did not load them (updates). */
async function terminationRow(s: WriteState, w: WriteContext, side: 'a' | 'b'): Promise<Row | null> {
  const given = s.related(`termination_${side}`);
  if (given) return given;
  const node = end(s, side);
  const def = node && w.ctx.registry.get(node.type);
  if (!node || !def) return null;
  // The stored end of the cable being changed (already read within the requester's scope as part of the cable).
  const [row] = await w.exec.query(sql`SELECT * ${unscoped(def).from(sql`${ident('id')} = ${node.id}`)}`);
  return row ?? null;
}

const name = (row: Row) => (row.device_id !== undefined ? componentName(row) : String(row.name ?? row.id));

/** A termination as the reference names it in messages: its model's label where it has one (a circuit termination's "Termination A: AMS1"). */
const label = (def: ResourceDefinition | undefined, row: Row, w: WriteContext) => terminationOptions(def).label?.(row, w) ?? Promise.resolve(name(row));

/**
 * Sets each end's `cable` and `cable_peer` (or clears them, for cables going: only where they
 * still point at those cables), one UPDATE per model and chunk for the whole batch.
 */
async function attach(w: WriteContext, cables: Row[], detach: boolean): Promise<void> {
  const ends = new Map<string, { id: string; cable: string | null; peer: PathNode | null }[]>();
  for (const c of cables) {
    for (const [side, other] of [['a', 'b'], ['b', 'a']] as const) {
      const peer = { type: String(c[`termination_${other}_type`]), id: String(c[`termination_${other}_id`]) };
      append(ends, String(c[`termination_${side}_type`]), { id: String(c[`termination_${side}_id`]), cable: detach ? null : String(c.id), peer: detach ? null : peer });
    }
  }
  const d = w.exec.dialect;
  for (const [type, all] of ends) {
    const def = w.ctx.registry.get(type);
    if (!def) continue;
    for (const list of chunks(all)) {
      const set = (col: string, value: (e: (typeof list)[number]) => unknown, t: 'uuid' | 'string') => perRow(d, col, t, list.map((e) => [e.id, value(e)]));
      const stillOurs = detach ? sql` AND ${inList(ident('cable_id'), cables.map((c) => String(c.id)))}` : sql``;
      await w.exec.execute(
        sql`UPDATE ${unscoped(def).table} SET ${join([set('cable_id', (e) => e.cable, 'uuid'), set('_cable_peer_type', (e) => e.peer?.type ?? null, 'string'), set('_cable_peer_id', (e) => e.peer?.id ?? null, 'uuid')])} WHERE ${inList(ident('id'), list.map((e) => e.id))}${stillOurs}`,
      );
    }
  }
}

/** Path endpoints among nodes (where a path starts). */
const endpoints = (w: WriteContext, nodes: PathNode[]) => nodes.filter((n) => w.ctx.registry.get(n.type)?.features.includes(PATH_ENDPOINTS));

/** Cables with a device at either end among those of a model named by id or name (devices, or the racks, locations, tenants of devices). */
const byDevices = (target: string, deviceColumn: string): CustomFilter => ({
  compile: async (values, _l, h) => {
    const ids = await h.resolveIds(model(target)(), values);
    if (!ids.length) return FALSE;
    // The devices the requester may view (a hidden device's cables do not match through its rack).
    const devices = (await h.rows(model('dcim.device')(), 'cd')).select('id', inList(ident('cd', deviceColumn), ids));
    return sql`(${h.col('_termination_a_device_id')} IN ${devices} OR ${h.col('_termination_b_device_id')} IN ${devices})`;
  },
});

/**
 * A physical connection between two terminations (ports, interfaces, power feeds): the
 * reference's compatibility matrix and rules, with their messages; one cable per termination;
 * terminations that never change (delete and recreate instead). Making, changing or removing a
 * cable sets both ends' `cable` and `cable_peer` and traces again every path it touches.
 */
export const cableResource = defineResource({
  app: 'dcim',
  model: 'cable',
  slug: 'cables',
  verboseName: 'cable',
  naturalKey: ['id'],
  ordering: ['termination_a_type', 'termination_a_id', 'termination_b_type', 'termination_b_id'],
  display: (r) => (r.label ? String(r.label) : `#${r.id}`),
  mixins: [statusMixin({ defaults: CABLE_STATUSES })],
  fields: {
    termination_a: field.genericForeignKey({ required: true, allowed: isTermination, cascade: true }),
    termination_b: field.genericForeignKey({ required: true, allowed: isTermination, cascade: true }),
    type: field.choice(CABLE_TYPES, { maxLength: 50 }),
    label: field.string({ maxLength: 255 }),
    color: field.color({ maxLength: 6, help: 'RGB color in hexadecimal (e.g. 00ff00)' }),
    length: field.integer({ nullable: true, minValue: 0, maxValue: 32767 }),
    length_unit: field.choice(CABLE_LENGTH_UNITS, { maxLength: 50 }),
  },
  columns: {
    _abs_length: column.decimal(14, 4, { nullable: true }),
    _termination_a_device_id: column.uuid({ nullable: true }),
    _termination_b_device_id: column.uuid({ nullable: true }),
  },
  indexes: [['_termination_a_device_id'], ['_termination_b_device_id']],
  uniqueTogether: [{ fields: ['termination_a'] }, { fields: ['termination_b'] }],
  search: ['label'],
  features: ['tags', 'customFields', 'notes'],
  filters: {
    device_id: byDevices('dcim.device', 'id'),
    device: byDevices('dcim.device', 'id'),
    rack_id: byDevices('dcim.rack', 'rack_id'),
    rack: byDevices('dcim.rack', 'rack_id'),
    location_id: byDevices('dcim.location', 'location_id'),
    location: byDevices('dcim.location', 'location_id'),
    tenant_id: byDevices('tenancy.tenant', 'tenant_id'),
    tenant: byDevices('tenancy.tenant', 'tenant_id'),
    /** Cables with an end of these types (either end). */
    termination_type: {
      compile: (values, _l, h) => sql`(${inList(h.col('termination_a_type'), values.map(String))} OR ${inList(h.col('termination_b_type'), values.map(String))})`,
    },
  },
  async rules(s, w): Promise<FieldErrors | void> {
    if (!s.create) {
      const message = 'Cable termination points may not be modified. Delete and recreate the cable instead.';
      for (const side of SIDES) {
        const before = s.existing!;
        if (String(before[`termination_${side}_type`]) !== String(s.values[`termination_${side}_type`]) || String(before[`termination_${side}_id`]) !== String(s.values[`termination_${side}_id`])) {
          return { [`termination_${side}`]: [message] };
        }
      }
    }
    const [a, b] = await Promise.all(SIDES.map((side) => terminationRow(s, w, side)));
    const [ta, tb] = SIDES.map((side) => String(s.values[`termination_${side}_type`]));
    const [da, db] = [w.ctx.registry.get(ta), w.ctx.registry.get(tb)];
    for (const [side, row, type] of [['a', a, ta], ['b', b, tb]] as const) {
      if (type === 'dcim.interface' && row && NONCONNECTABLE_TYPES.has(String(row.type))) {
        return { [`termination_${side}_id`]: [`Cables cannot be terminated to ${INTERFACE_LABELS.get(String(row.type)) ?? row.type} interfaces`] };
      }
    }
    if (!(COMPATIBLE[da?.model ?? ''] ?? []).includes(db?.model ?? '')) return { __all__: [`Incompatible termination types: ${contentTypeName(da, ta)} and ${contentTypeName(db, tb)}`] };
    if (a && b && ta === 'dcim.rearport' && tb === 'dcim.rearport' && Number(a.positions) > 1 && Number(b.positions) > 1 && Number(a.positions) !== Number(b.positions)) {
      return { __all__: [`${name(a)} has ${a.positions} position(s) but ${name(b)} has ${b.positions}. Both terminations must have the same number of positions (if greater than one).`] };
    }
    if (ta === tb && String(s.values.termination_a_id) === String(s.values.termination_b_id)) return { __all__: [`Cannot connect ${contentTypeName(da, ta)} to itself`] };
    if (a && b && [ta, tb].every((t) => t === 'dcim.frontport' || t === 'dcim.rearport') && (String(a.rear_port_id) === String(b.id) || String(b.rear_port_id) === String(a.id))) {
      return { __all__: ['A front port cannot be connected to it corresponding rear port'] };
    }
    for (const [side, row, def] of [['a', a, da], ['b', b, db]] as const) {
      const refused = row && terminationOptions(def).refuseCable?.(row);
      if (refused) return { [`termination_${side}_id`]: [refused] };
    }
    for (const [row, def] of [[a, da], [b, db]] as const) {
      if (row?.cable_id && String(row.cable_id) !== String(s.values.id)) return { __all__: [`${await label(def, row, w)} already has a cable attached (#${row.cable_id})`] };
    }
    if (s.values.length !== null && s.values.length !== undefined && !s.values.length_unit) return { __all__: ['Must specify a unit when setting a cable length'] };
  },
  /** Two cables of one request may not share an end either. */
  async validateBatch(states, w) {
    const seen = new Map<string, number>();
    const errors: (FieldErrors | void)[] = states.map(() => undefined);
    for (const [i, s] of states.entries()) {
      for (const side of SIDES) {
        const node = end(s, side);
        if (!node) continue;
        const key = `${node.type}:${node.id}`;
        if (seen.has(key) && seen.get(key) !== i) {
          errors[i] = { __all__: [`${await label(w.ctx.registry.get(node.type), s.related(`termination_${side}`) ?? { id: node.id }, w)} already has a cable attached`] };
          break;
        }
        seen.set(key, i);
      }
    }
    return errors;
  },
  async beforeSave(states, w) {
    // An end on a module's component is on the device the module is installed in (the reference's module.device), read once for the batch.
    const modules = states.flatMap((s) => SIDES.map((side) => s.related(`termination_${side}`))).filter((r): r is Row => !!r && !r.device_id && !!r.module_id);
    const places = modules.length ? await modulePlaces(w.exec, modules.map((r) => String(r.module_id))) : new Map();
    for (const s of states) {
      if (s.values.length === null || s.values.length === undefined) s.values.length_unit = '';
      const unit = String(s.values.length_unit ?? '');
      s.values._abs_length = s.values.length !== null && s.values.length !== undefined && METERS_PER_UNIT[unit] ? (Number(s.values.length) * METERS_PER_UNIT[unit]).toFixed(4) : null;
      for (const side of SIDES) {
        const row = s.related(`termination_${side}`);
        if (row) s.values[`_termination_${side}_device_id`] = row.device_id ?? (row.module_id ? (places.get(String(row.module_id))?.device ?? null) : null);
      }
    }
  },
  async afterSave(_ids, w, states) {
    const created = states.filter((s) => s.create).map((s) => s.values);
    if (created.length) {
      await attach(w, created, false);
      const nodes = created.flatMap((c) => SIDES.map((side) => ({ type: String(c[`termination_${side}_type`]), id: String(c[`termination_${side}_id`]) })));
      // Paths through the new ends are traced again: pass-through ports, and endpoints a path may run through (a circuit's terminations).
      const through = nodes.filter((n) => !endpoints(w, [n]).length || terminationOptions(w.ctx.registry.get(n.type)).across);
      await retrace(w, [...endpoints(w, nodes), ...(await originsThrough(w.exec, through))]);
    }
    const restatused = states.filter((s) => !s.create && String(s.existing!.status_id) !== String(s.values.status_id)).map((s) => ({ type: objectType(cableResource), id: String(s.values.id) }));
    if (restatused.length) await retrace(w, await originsThrough(w.exec, restatused));
  },
  /** The ends are set free and every path through the cables traced again (without them). */
  async beforeDelete(rows, w) {
    const origins = await originsThrough(w.exec, rows.map((r) => ({ type: objectType(cableResource), id: String(r.id) })));
    await attach(w, rows, true);
    await retrace(w, origins);
  },
});
