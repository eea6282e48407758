import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../../core/context';
import { constant } from '../../core/resource/serialize/json-encoder';
import type { Row } from '../../database/db';
import { DEVICE_FACES } from './choices';
import { rackUnits } from './resources/rack.resource';

export type Face = 'front' | 'rear';

/** Something mounted in a rack (a device): its lowest unit, its height, the face it is on and whether it fills the depth of the rack. */
export interface RackOccupant {
  id: string;
  position: number;
  height: number;
  face: Face | null;
  fullDepth: boolean;
  /** Whether the requester may view it (units it takes show as occupied either way). */
  visible: boolean;
}

/**
 * Where rack occupants come from. Devices do not exist yet, so no source is registered and
 * every unit is free; the device model registers one (`RackOccupancy.register`) that lists a
 * rack's mounted devices, and the elevation shows them with no change here.
 */
export interface RackOccupantSource {
  occupants(ctx: RequestContext, rack: Row, exclude: string | null): Promise<RackOccupant[]>;
}

@Injectable()
export class RackOccupancy {
  private readonly sources: RackOccupantSource[] = [];

  register(source: RackOccupantSource): void {
    this.sources.push(source);
  }

  async occupants(ctx: RequestContext, rack: Row, exclude: string | null): Promise<RackOccupant[]> {
    return (await Promise.all(this.sources.map((s) => s.occupants(ctx, rack, exclude)))).flat();
  }
}

const FACES = Object.fromEntries(DEVICE_FACES.map(([value, label]) => [value, constant({ value, label })])) as Record<Face, object>;

export interface RackUnit {
  id: number;
  name: string;
  face: object;
  occupied: boolean;
}

/**
 * A rack's units seen from one face, top first (Nautobot's `Rack.get_rack_units`): occupied by
 * what is mounted on that face or fills the rack's depth. With `expand`, every unit an occupant
 * takes is listed; without it, only its lowest unit.
 */
export function rackElevation(rack: Row, face: Face, occupants: RackOccupant[], expand: boolean): RackUnit[] {
  const units = new Map<number, RackUnit>();
  for (const u of rackUnits(rack)) units.set(u, { id: u, name: `U${u}`, face: FACES[face], occupied: false });
  for (const o of occupants) {
    if (o.position <= 0 || o.height <= 0 || !(o.face === face || o.fullDepth)) continue;
    for (let u = o.position; u < o.position + o.height; u++) {
      const unit = units.get(u);
      if (!unit) continue;
      if (expand || u === o.position) unit.occupied = true;
      else units.delete(u);
    }
  }
  return [...units.values()];
}
