import { Controller, Get, Header, Req } from '@nestjs/common';
import { ResourceRoute } from '../../../core/auth/decorators';
import { ContextFactory } from '../../../core/http/context.factory';
import type { NkRequest } from '../../../core/http/request';
import { BadRequestError } from '../../../core/resource/errors';
import { first, toQuery } from '../../../core/resource/query/params';
import { visibleRows } from '../../../core/resource/query/scope';
import { ResourceService } from '../../../core/resource/resource.service';
import { Representer } from '../../../core/resource/serialize/representer';
import { ident, inList, sql } from '../../../database/sql';
import { unscoped } from '../../../core/resource/query/rows';
import { deviceResource } from '../resources/device.resource';
import { interfaceResource } from '../resources/interface.resource';
import { consolePortResource } from '../resources/ports.resource';
import { powerPortResource } from '../resources/power-components.resource';

/** Ports whose traced path reaches a far end (`t` is the list's alias). */
const connected = sql`t.${ident('_connected_endpoint_id')} IS NOT NULL`;

/**
 * The reference's read-only connection lists: console ports and power ports that reach a far
 * end, as the ports themselves (filters `device`, `device_id`, `location`, `name` and the
 * rest of the port's); interface pairs, each once (the lower id first), as `interface_a`,
 * `interface_b` and `connected_endpoint_reachable`; and `connected-device/`, the device at the
 * far end of a named peer interface (for a device that learns its neighbour by LLDP).
 */
@Controller('api/dcim')
export class ConnectionsController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly service: ResourceService,
  ) {}

  @Get('console-connections')
  @Header('Allow', 'GET, HEAD, OPTIONS')
  @ResourceRoute(consolePortResource, 'view')
  consoleConnections(@Req() req: NkRequest) {
    return this.service.list(this.contexts.create(req), consolePortResource, toQuery(req.query), req.path, connected);
  }

  @Get('power-connections')
  @Header('Allow', 'GET, HEAD, OPTIONS')
  @ResourceRoute(powerPortResource, 'view')
  powerConnections(@Req() req: NkRequest) {
    return this.service.list(this.contexts.create(req), powerPortResource, toQuery(req.query), req.path, connected);
  }

  @Get('interface-connections')
  @Header('Allow', 'GET, HEAD, OPTIONS')
  @ResourceRoute(interfaceResource, 'view')
  async interfaceConnections(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const pairs = sql`${connected} AND t.${ident('_connected_endpoint_type')} = ${'dcim.interface'} AND t.${ident('id')} < t.${ident('_connected_endpoint_id')}`;
    const page = await this.service.list(ctx, interfaceResource, toQuery(req.query), req.path, pairs);
    // The far ends, read within the requester's view (one it may not view shows as null).
    const ids = page.results.map((r) => String((r.connected_endpoint as { id: string }).id));
    const visible = await visibleRows(ctx, ctx.db, interfaceResource, 't');
    const rows = ids.length ? await ctx.db.query(sql`SELECT t.* ${visible.from(inList(ident('t', 'id'), ids))}`) : [];
    const far = new Map((await new Representer(ctx, ctx.db).represent(interfaceResource, rows, { depth: 0 })).map((o) => [String(o.id), o]));
    return { ...page, results: page.results.map((a, i) => ({ interface_a: a, interface_b: far.get(ids[i]) ?? null, connected_endpoint_reachable: a.connected_endpoint_reachable })) };
  }

  @Get('connected-device')
  @Header('Allow', 'GET, HEAD, OPTIONS')
  @ResourceRoute(interfaceResource, 'view')
  async connectedDevice(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const q = toQuery(req.query);
    const peerDevice = first(q, 'peer_device');
    const peerInterface = first(q, 'peer_interface');
    if (!peerDevice || !peerInterface) throw new BadRequestError('Request must include "peer_device" and "peer_interface" filters.');
    const [interfaces, devices] = await Promise.all([visibleRows(ctx, ctx.db, interfaceResource, 't'), visibleRows(ctx, ctx.db, deviceResource, 'd')]);
    const [peer] = await ctx.db.query(
      sql`SELECT t.* ${interfaces.fromJoined(sql` ${devices.join(sql`d.${ident('id')} = t.${ident('device_id')}`)}`, sql`d.${ident('name')} = ${peerDevice}`, sql`t.${ident('name')} = ${peerInterface}`)}`,
    );
    if (!peer) throw this.service.notFound(interfaceResource);
    if (peer._connected_endpoint_type !== 'dcim.interface' || !peer._connected_endpoint_id) return null;
    // The far end's device is then read within the requester's view (a 404 when hidden).
    const [local] = await ctx.db.query(sql`SELECT ${ident('device_id')} ${unscoped(interfaceResource).from(sql`${ident('id')} = ${peer._connected_endpoint_id}`)}`);
    if (!local) return null;
    return this.service.retrieve(ctx, deviceResource, String(local.device_id), toQuery({}));
  }
}
