import type { Executor, Row } from '../../database/db';
import { ident, inList, sql, Sql, TRUE } from '../../database/sql';
import { storedBoolean } from '../../core/resource/serialize/values';

/** A device mounted at a position of a rack, with what its type says of its size. */
export interface Mounted {
  id: string;
  rack: string;
  position: number;
  face: string;
  height: number;
  fullDepth: boolean;
}

/**
 * The devices mounted (at a position) in the given racks, with their type's height and depth,
 * but those of `exclude`; `visible` is a condition on the device alias `d` read into `visible`.
 */
export async function mountedDevices(exec: Executor, racks: string[], exclude: string[] = [], visible: Sql = TRUE): Promise<(Mounted & { visible: boolean })[]> {
  if (!racks.length) return [];
  const rows = await exec.query<Row>(
    sql`SELECT ${ident('d', 'id')}, ${ident('d', 'rack_id')}, ${ident('d', 'position')}, ${ident('d', 'face')}, ${ident('dt', 'u_height')}, ${ident('dt', 'is_full_depth')}, CASE WHEN ${visible} THEN 1 ELSE 0 END AS ${ident('visible')} FROM ${ident('dcim_device')} ${ident('d')} JOIN ${ident('dcim_devicetype')} ${ident('dt')} ON ${ident('dt', 'id')} = ${ident('d', 'device_type_id')} WHERE ${inList(ident('d', 'rack_id'), racks)} AND ${ident('d', 'position')} IS NOT NULL`,
  );
  const skip = new Set(exclude);
  return rows
    .filter((r) => !skip.has(String(r.id)))
    .map((r) => ({
      id: String(r.id),
      rack: String(r.rack_id),
      position: Number(r.position),
      face: String(r.face ?? ''),
      height: Number(r.u_height),
      fullDepth: storedBoolean(r.is_full_depth),
      visible: storedBoolean(r.visible),
    }));
}

/**
 * Whether a device of `height` units fits at `position` of a rack of `rackHeight` units beside
 * the others mounted there (Nautobot's available units): every unit from the position up must be
 * in the rack and not taken by a device on the same face, or by one that fills the depth; a
 * device that fills the depth itself (face null) is in the way of both faces.
 */
export function fits(rackHeight: number, position: number, height: number, face: string | null, others: Mounted[]): boolean {
  if (position < 1 || position + height - 1 > rackHeight) return false;
  for (const o of others) {
    if (face !== null && o.face !== face && !o.fullDepth) continue;
    if (o.position <= position + height - 1 && position <= o.position + o.height - 1 && o.height > 0) return false;
  }
  return true;
}

/** The devices of a type mounted in racks, with their rack's name, facility id and height (for a type's height rules). */
export async function mountedOfType(exec: Executor, typeId: string): Promise<Row[]> {
  return exec.query<Row>(
    sql`SELECT ${ident('d', 'id')}, ${ident('d', 'name')}, ${ident('d', 'rack_id')}, ${ident('d', 'position')}, ${ident('d', 'face')}, ${ident('r', 'name')} AS ${ident('rack_name')}, ${ident('r', 'facility_id')}, ${ident('r', 'u_height')} FROM ${ident('dcim_device')} ${ident('d')} JOIN ${ident('dcim_rack')} ${ident('r')} ON ${ident('r', 'id')} = ${ident('d', 'rack_id')} WHERE ${ident('d', 'device_type_id')} = ${typeId} AND ${ident('d', 'position')} IS NOT NULL`,
  );
}

/**
 * Why a device type's new height does not suit its mounted devices (the reference's messages),
 * or nothing: a taller type must still fit at each device's position beside the others of its
 * rack; a type with mounted devices cannot become 0U.
 */
export async function typeHeightError(exec: Executor, type: { id: string; model: string; manufacturerId: string; manufacturer: string; height: number; fullDepth: boolean }, before: number): Promise<string | undefined> {
  if (type.height <= before && type.height !== 0) return;
  if (type.height === 0 && before === 0) return;
  const instances = await mountedOfType(exec, type.id);
  if (!instances.length) return;
  if (type.height === 0) {
    return `Unable to set 0U height: Found <a href="/dcim/devices/?manufacturer=${type.manufacturerId}&device_type=${type.id}">${instances.length} instances</a> already mounted within racks.`;
  }
  const others = await mountedDevices(exec, [...new Set(instances.map((d) => String(d.rack_id)))]);
  for (const d of instances) {
    const id = String(d.id);
    const beside = others.filter((o) => o.rack === String(d.rack_id) && o.id !== id);
    if (fits(Number(d.u_height), Number(d.position), type.height, type.fullDepth ? null : String(d.face ?? ''), beside)) continue;
    const device = d.name ? String(d.name) : `${type.manufacturer} ${type.model} (${id})`;
    const rack = d.facility_id ? `${d.rack_name} (${d.facility_id})` : String(d.rack_name);
    return `Device ${device} in rack ${rack} does not have sufficient space to accommodate a height of ${type.height}U`;
  }
}

/** The lowest height a rack may take with its mounted devices (the reference's: the top device's position and height), 0 with none. */
export async function minimumRackHeight(exec: Executor, rackId: string): Promise<number> {
  const mounted = await mountedDevices(exec, [rackId]);
  const top = mounted.reduce<Mounted | null>((a, m) => (!a || m.position > a.position ? m : a), null);
  return top ? top.position + top.height - 1 : 0;
}
