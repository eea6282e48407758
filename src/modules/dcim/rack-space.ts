import type { Executor, Row } from '../../database/db';
import { ident, inList, sql, Sql, TRUE } from '../../database/sql';

/** A device mounted at a position of a rack, with what its type says of its size. */
export interface Mounted {
  id: string;
  rack: string;
  position: number;
  face: string;
  height: number;
  fullDepth: boolean;
}

const truthy = (v: unknown) => v === true || v === 1 || v === '1' || v === 't';

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
      fullDepth: truthy(r.is_full_depth),
      visible: truthy(r.visible),
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
