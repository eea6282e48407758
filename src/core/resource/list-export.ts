import { StreamableFile } from '@nestjs/common';
import { sql } from '../../database/sql';
import type { RequestContext } from '../context';
import { ApiResponse } from '../http/api-response';
import type { ResourceDefinition } from './definition';
import { first, Query } from './query/params';
import { orderBy } from './query/sort';
import type { ResourceService } from './resource.service';

/** What a browser may do with an exported file opened in place: nothing (it is sent as an attachment anyway). */
const EXPORT_CSP = "default-src 'none'; sandbox";

/**
 * `?<param>=<value>` on any model's list, for the extensions that render a list as a file
 * (ListExportPart: export templates). The parameter is taken out of the query (it is no
 * filter); with a value, the part renders the whole filtered list, scoped to what the requester
 * may view, in the list's order; without one the list is served as usual. Null: not asked for.
 */
export async function listExport(ctx: RequestContext, service: ResourceService, def: ResourceDefinition, q: Query): Promise<ApiResponse | null> {
  for (const ext of ctx.registry.extensionsOf(def)) {
    const part = ext.listExport;
    if (!part || !q.has(part.param)) continue;
    const value = first(q, part.param) ?? '';
    q.delete(part.param);
    if (!value) continue;
    const exec = ctx.db;
    const rows = async (max: number) => {
      const from = await service.listFrom(ctx, exec, def, q);
      return exec.query(sql`SELECT t.* ${from} ORDER BY ${await orderBy(ctx, exec, def, q, 't')} LIMIT ${max + 1}`);
    };
    const file = await part.render({ ctx, exec, def }, value, rows);
    const name = file.filename.replace(/["\\\r\n]/g, '_');
    return new ApiResponse(200, new StreamableFile(Buffer.from(file.body), { type: file.contentType, disposition: `attachment; filename="${name}"` }), {
      'Content-Security-Policy': EXPORT_CSP,
    });
  }
  return null;
}
