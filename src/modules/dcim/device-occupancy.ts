import { Injectable, OnModuleInit } from '@nestjs/common';
import type { RequestContext } from '../../core/context';
import { visibleRows } from '../../core/resource/query/scope';
import type { Row } from '../../database/db';
import { Face, RackOccupancy, RackOccupant, RackOccupantSource } from './elevation';
import { mountedDevices } from './rack-space';
import { deviceResource } from './resources/device.resource';

/** The devices mounted in a rack, as the elevation's occupants: registered with RackOccupancy when the app starts. */
@Injectable()
export class DeviceOccupants implements RackOccupantSource, OnModuleInit {
  constructor(private readonly occupancy: RackOccupancy) {}

  onModuleInit(): void {
    this.occupancy.register(this);
  }

  async occupants(ctx: RequestContext, rack: Row, exclude: string | null): Promise<RackOccupant[]> {
    // Every mounted device takes its units; the hidden ones are marked (and named nowhere).
    const visible = (await visibleRows(ctx, ctx.db, deviceResource, 'd')).visible;
    const mounted = await mountedDevices(ctx.db, [String(rack.id)], exclude ? [exclude] : [], visible);
    return mounted.map((m) => ({
      id: m.id,
      position: m.position,
      height: m.height,
      face: m.face === 'front' || m.face === 'rear' ? (m.face as Face) : null,
      fullDepth: m.fullDepth,
      visible: m.visible,
    }));
  }
}
