import { defineResource, model, objectType, WriteContext } from '../../../core/resource/definition';
import { visibleIds } from '../../../core/resource/query/scope';
import { field } from '../../../core/resource/fields';
import { unscoped } from '../../../core/resource/query/rows';
import type { Row } from '../../../database/db';
import { ident, inList, sql } from '../../../database/sql';
import { originsThrough, PathNode, retrace } from '../../dcim/cabling/paths';
import { cableTermination, pathEndpoint } from '../../dcim/cabling/terminations';
import { locatedMixin, locationName } from '../../dcim/mixins';
import { cloudNetworkResource } from '../../cloud/resources/cloud-network.resource';
import { TERM_SIDES } from '../choices';
import { circuitResource } from './circuit.resource';
import { providerNetworkResource } from './provider-network.resource';

const same = (a: unknown, b: unknown) => String(a ?? '') === String(b ?? '');

/** The terminations of some circuits (bookkeeping: the other end of a circuit, seen or not by the requester). */
async function terminationsOf(w: WriteContext, circuitIds: unknown[]): Promise<Row[]> {
  const ids = [...new Set(circuitIds.filter((x) => x !== null && x !== undefined).map(String))];
  if (!ids.length) return [];
  return w.exec.query(sql`SELECT * ${unscoped(circuitTerminationResource).from(inList(ident('circuit_id'), ids))}`);
}

/** A circuit's termination on the other side (Nautobot's get_peer_termination), for each termination of a batch. */
async function otherSides(rows: Row[], w: WriteContext): Promise<Map<string, Row | null>> {
  const all = await terminationsOf(w, rows.map((r) => r.circuit_id));
  return new Map(rows.map((r) => [String(r.id), all.find((o) => same(o.circuit_id, r.circuit_id) && !same(o.term_side, r.term_side)) ?? null]));
}

/**
 * Nautobot's str(): "Termination A: AMS1", named by its location, provider network or cloud
 * network; where the requester may not view that, the termination alone ("Termination A").
 */
async function label(row: Row, w: WriteContext): Promise<string> {
  const [def, id] = row.location_id
    ? [model('dcim.location')(), row.location_id]
    : row.provider_network_id
      ? [providerNetworkResource, row.provider_network_id]
      : [cloudNetworkResource, row.cloud_network_id];
  if (!id) return `Termination ${row.term_side}: None`;
  if (!(await visibleIds(w.ctx, w.exec, def, [id])).has(String(id))) return `Termination ${row.term_side}`;
  if (row.location_id) return `Termination ${row.term_side}: ${await locationName(w, id)}`;
  const [place] = await w.exec.query<{ name: string }>(sql`SELECT ${ident('name')} ${unscoped(def).from(sql`${ident('id')} = ${id}`)}`);
  return `Termination ${row.term_side}: ${place?.name ?? 'None'}`;
}

/** Each circuit's `circuit_termination_a` / `_z` from its terminations as they are now (one UPDATE), with its last change. */
async function syncCircuits(w: WriteContext, circuitIds: unknown[]): Promise<void> {
  const ids = [...new Set(circuitIds.filter((x) => x !== null && x !== undefined).map(String))];
  if (!ids.length) return;
  const side = (s: string) => unscoped(circuitTerminationResource, 't').select('id', sql`${ident('t', 'circuit_id')} = ${ident('c', 'id')}`, sql`${ident('t', 'term_side')} = ${s}`);
  const now = w.exec.dialect.toDb(w.ctx.now(), 'datetime');
  await w.exec.execute(
    sql`UPDATE ${unscoped(circuitResource, 'c').table} SET ${ident('circuit_termination_a_id')} = ${side('A')}, ${ident('circuit_termination_z_id')} = ${side('Z')}, ${ident('last_updated')} = ${now} WHERE ${inList(ident('c', 'id'), ids)}`,
  );
}

/**
 * One end of a circuit (side A or Z, one each per circuit): at a location (whose type must allow
 * circuit terminations) or on a provider network, not both. Cables end on it like on a DCIM port,
 * unless it is on a provider network, and paths run through the circuit to the other end.
 */
export const circuitTerminationResource = defineResource({
  app: 'circuits',
  model: 'circuittermination',
  // Read by a location's counts or every model's tags: kept with a detail (serialize/kept-values.ts).
  watched: true,
  partOf: ['circuit'],
  slug: 'circuit-terminations',
  verboseName: 'circuit termination',
  naturalKey: ['circuit', 'term_side'],
  ordering: ['circuit', 'term_side'],
  display: (r, h) => `Termination ${r.term_side}: ${h.related('location')?.name ?? h.related('provider_network')?.name ?? h.related('cloud_network')?.name ?? 'None'}`,
  displayUses: { location: ['name'], provider_network: ['name'], cloud_network: ['name'] },
  mixins: [
    locatedMixin({ nullable: true, message: (type) => `Circuit terminations may not associate to locations of type "${type}"` }),
    cableTermination({ refuseCable: (row) => (row.provider_network_id ? 'Circuit terminations attached to a provider network may not be cabled.' : undefined), label, across: otherSides }),
    pathEndpoint(),
  ],
  fields: {
    circuit: field.foreignKey(() => circuitResource, { required: true, onDelete: 'cascade', relatedName: 'circuit_terminations' }),
    term_side: field.choice(TERM_SIDES, { required: true, maxLength: 1, label: 'Termination' }),
    provider_network: field.foreignKey(() => providerNetworkResource, { nullable: true, onDelete: 'protect', relatedName: 'circuit_terminations' }),
    cloud_network: field.foreignKey(() => cloudNetworkResource, { nullable: true, onDelete: 'protect', relatedName: 'circuit_terminations' }),
    port_speed: field.integer({ nullable: true, minValue: 0, maxValue: 2147483647, label: 'Port speed (Kbps)' }),
    upstream_speed: field.integer({ nullable: true, minValue: 0, maxValue: 2147483647, label: 'Upstream speed (Kbps)', help: 'Upstream speed, if different from port speed' }),
    xconnect_id: field.string({ maxLength: 255, label: 'Cross-connect ID' }),
    pp_info: field.string({ maxLength: 255, label: 'Patch panel/port(s)' }),
    description: field.string({ maxLength: 255 }),
  },
  uniqueTogether: [{ fields: ['circuit', 'term_side'] }],
  search: ['circuit__cid', 'xconnect_id', 'pp_info', 'description'],
  features: ['tags', 'customFields', 'notes'],
  rules(s) {
    const { location_id: location, provider_network_id: network, cloud_network_id: cloud } = s.values;
    if (!location && !network && !cloud) return { __all__: ['A circuit termination must attach to a location, a provider network or a cloud network.'] };
    if (location && network) return { __all__: ['A circuit termination cannot attach to both a location and a provider network.'] };
    if (location && cloud) return { __all__: ['A circuit termination cannot attach to both a location and a cloud network.'] };
    if (network && cloud) return { __all__: ['A circuit termination cannot attach to both a provider network and a cloud network.'] };
  },
  /**
   * The circuits take their terminations (Nautobot's update_circuit signal); where a termination
   * arrived on a circuit or changed sides, every path through either end of the circuits
   * concerned is traced again (Nautobot's update_connected_terminations).
   */
  async afterSave(_ids, w, states) {
    await syncCircuits(w, states.flatMap((s) => [s.values.circuit_id, s.existing?.circuit_id]));
    const moved = states.filter((s) => s.create || !same(s.existing!.circuit_id, s.values.circuit_id) || !same(s.existing!.term_side, s.values.term_side));
    if (!moved.length) return;
    const ends = await terminationsOf(w, moved.flatMap((s) => [s.values.circuit_id, s.existing?.circuit_id]));
    const nodes: PathNode[] = ends.map((r) => ({ type: objectType(circuitTerminationResource), id: String(r.id) }));
    const cables = ends.filter((r) => r.cable_id).map((r) => ({ type: 'dcim.cable', id: String(r.cable_id) }));
    await retrace(w, [...nodes, ...(await originsThrough(w.exec, [...nodes, ...cables]))]);
  },
  /** Paths that ran through a termination deleted without its cable (the other end's) are traced again. */
  async afterDelete(rows, w) {
    await retrace(w, await originsThrough(w.exec, rows.map((r) => ({ type: objectType(circuitTerminationResource), id: String(r.id) }))));
  },
});
