import { Controller, Get, Header, Post, Req } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse } from '@nestjs/swagger';
import { ResourceRoute } from '../../core/auth/decorators';
import type { RequestContext } from '../../core/context';
import { ApiResponse } from '../../core/http/api-response';
import { ContextFactory } from '../../core/http/context.factory';
import { wantsCsv } from '../../core/http/negotiation';
import { CsvService } from '../../core/resource/csv/csv.service';
import { NkRequest, parseBody } from '../../core/http/request';
import { FieldErrors, ValidationError } from '../../core/resource/errors';
import { first, toQuery, Query } from '../../core/resource/query/params';
import { ResourceService } from '../../core/resource/resource.service';
import { ResourceWriter } from '../../core/resource/resource-writer';
import type { Executor, Row } from '../../database/db';
import { allocatePrefix, freeAddresses, freePrefixes, reservesEdges } from './available';
import { BITS, formatAddress, formatCidr, fromBigInt, IpVersion, parseAddress, toBigInt } from './ip';
import { lockNamespaces } from './parents';
import { ipAddressResource } from './resources/ip-address.resource';
import { prefixResource } from './resources/prefix.resource';

const ALLOW = 'GET, POST, HEAD, OPTIONS';
/** Upper bound of one listing of free addresses when MAX_PAGE_SIZE is disabled. */
const AVAILABLE_IPS_CAP = 1000;

type Obj = Record<string, unknown>;

const STATUS = { description: 'The status of what is created: its UUID or name' };
const IP_ALLOCATION = {
  type: 'object',
  required: ['status'],
  description: 'The fields of the new IP address (as for a create) but its address, parent and namespace, which come from the prefix',
  properties: { status: STATUS, type: { type: 'string' }, dns_name: { type: 'string' }, description: { type: 'string' } },
  additionalProperties: true,
};
const PREFIX_LENGTH = {
  type: 'object',
  required: ['prefix_length', 'status'],
  description: 'The length of the new prefix, and its fields (as for a create) but its prefix and namespace, which come from the parent',
  properties: { prefix_length: { type: 'integer', minimum: 0, maximum: 128 }, status: STATUS, type: { type: 'string' }, description: { type: 'string' } },
  additionalProperties: true,
};
const FREE = (key: string) => ({ type: 'array', items: { type: 'object', properties: { ip_version: { type: 'integer', enum: [4, 6] }, [key]: { type: 'string' } } } });
const NOTHING_FREE = 'The prefix has not enough free space for the request: nothing was created';

/** A POST body: one object or a list of objects; returns the list and whether it was a list. */
function items(body: unknown): { list: Obj[]; many: boolean } {
  const many = Array.isArray(body);
  const list = (many ? body : [body ?? {}]) as unknown[];
  if (!list.length) throw new ValidationError({ non_field_errors: ['Expected a list of items but got an empty list.'] });
  const bad = list.map((x): FieldErrors => (x && typeof x === 'object' && !Array.isArray(x) ? {} : { non_field_errors: ['Invalid data. Expected a dictionary.'] }));
  if (bad.some((e) => Object.keys(e).length)) throw new ValidationError(many ? bad : bad[0]);
  return { list: list as Obj[], many };
}

/**
 * /api/ipam/prefixes/<id>/available-ips/ and /available-prefixes/: list free space, or allocate
 * from it. Allocation locks the namespace exclusively and then the prefix row, so concurrent
 * allocations in one namespace take turns (also from overlapping prefixes: a /16 and a /24 in
 * it) and never get the same space. Should a race still be lost (a deadlock against a prefix
 * change that locked its row first), the allocation runs again and sees the winner's writes.
 */
@Controller('api/ipam/prefixes/:id')
export class AvailableController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly service: ResourceService,
    private readonly csv: CsvService,
  ) {}

  @Get('available-ips')
  @ApiOkResponse({ description: 'Free addresses of the prefix, in order', schema: FREE('address') })
  @Header('Allow', ALLOW)
  @ResourceRoute(prefixResource, 'view')
  async listIps(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const q = toQuery(req.query);
    const prefix = await this.service.findOne(ctx, ctx.db, prefixResource, String(req.params.id), 'view');
    const limit = this.limit(ctx, q);
    const free = await this.freeIps(ctx.db, prefix, q, limit, !ctx.db.inTransactionHere);
    const version = Number(prefix.ip_version) as IpVersion;
    const list = free.map((a) => ({ ip_version: version, address: formatCidr(version, fromBigInt(version, a), Number(prefix.prefix_length)) }));
    return wantsCsv(req) ? this.csv.plain('availableip', ['address', 'ip_version'], list) : list;
  }

  @Post('available-ips')
  @ApiBody({ required: true, description: 'One object (or a list of them: one address each)', schema: IP_ALLOCATION })
  @ApiCreatedResponse({ description: 'The address created (a list for a list)', schema: { $ref: '#/components/schemas/IPAddress' } })
  @ApiNoContentResponse({ description: NOTHING_FREE })
  @Header('Allow', ALLOW)
  @ResourceRoute(ipAddressResource, 'add')
  async allocateIps(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const q = toQuery(req.query);
    const { list, many } = items(parseBody(req, false));
    const result = await ctx.db.retryingTransaction(async (tx) => {
      // The namespace exclusively: allocations from overlapping prefixes take turns too.
      const prefix = await this.lockPrefix(ctx, tx, String(req.params.id), true);
      const free = await this.freeIps(tx, prefix, q, list.length);
      if (free.length < list.length) return null;
      const version = Number(prefix.ip_version) as IpVersion;
      const inputs = list.map((item, i) => {
        const { address: _a, parent: _p, namespace: _n, ...rest } = item;
        return { ...rest, address: formatCidr(version, fromBigInt(version, free[i]), Number(prefix.prefix_length)), namespace: String(prefix.namespace_id) };
      });
      const ids = await new ResourceWriter(ctx, tx).create(ipAddressResource, inputs, many);
      return this.service.readBack(ctx, tx, ipAddressResource, ids);
    });
    if (!result) return new ApiResponse(204, undefined);
    return new ApiResponse(201, many ? result : result[0]);
  }

  @Get('available-prefixes')
  @ApiOkResponse({ description: 'Free blocks of the prefix, as CIDR prefixes', schema: FREE('prefix') })
  @Header('Allow', ALLOW)
  @ResourceRoute(prefixResource, 'view')
  async listPrefixes(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const prefix = await this.service.findOne(ctx, ctx.db, prefixResource, String(req.params.id), 'view');
    const version = Number(prefix.ip_version) as IpVersion;
    const list = (await freePrefixes(ctx.db, prefix)).map((f) => ({ ip_version: version, prefix: formatCidr(version, fromBigInt(version, f.network), f.length) }));
    return wantsCsv(req) ? this.csv.plain('availableprefix', ['prefix', 'ip_version'], list) : list;
  }

  @Post('available-prefixes')
  @ApiBody({ required: true, description: 'One object (or a list of them: one prefix each)', schema: PREFIX_LENGTH })
  @ApiCreatedResponse({ description: 'The prefix created (a list for a list)', schema: { $ref: '#/components/schemas/Prefix' } })
  @ApiNoContentResponse({ description: NOTHING_FREE })
  @Header('Allow', ALLOW)
  @ResourceRoute(prefixResource, 'add')
  async allocatePrefixes(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const { list, many } = items(parseBody(req, false));
    const result = await ctx.db.retryingTransaction(async (tx) => {
      const prefix = await this.lockPrefix(ctx, tx, String(req.params.id), true);
      const version = Number(prefix.ip_version) as IpVersion;
      const lengths = list.map((item) => {
        const l = item.prefix_length;
        if (typeof l !== 'number' || !Number.isInteger(l)) throw new ValidationError({ prefix_length: ['This field must be an integer.'] });
        if (l < 0 || l > BITS[version]) throw new ValidationError({ prefix_length: [`Invalid prefix length (${l}) for IPv${version}`] });
        return l;
      });
      const free = await freePrefixes(tx, prefix);
      const networks: bigint[] = [];
      for (const l of lengths) {
        const n = l >= Number(prefix.prefix_length) ? allocatePrefix(version, free, l) : null;
        if (n === null) return null;
        networks.push(n);
      }
      const inputs = list.map((item, i) => {
        const { prefix_length: _l, prefix: _p, namespace: _n, ...rest } = item;
        return { ...rest, prefix: formatCidr(version, fromBigInt(version, networks[i]), lengths[i]), namespace: String(prefix.namespace_id) };
      });
      const ids = await new ResourceWriter(ctx, tx).create(prefixResource, inputs, many);
      return this.service.readBack(ctx, tx, prefixResource, ids);
    });
    if (!result) return new ApiResponse(204, undefined);
    return new ApiResponse(201, many ? result : result[0]);
  }

  /** The prefix (visible to the requester), its namespace locked first, then its row. */
  private async lockPrefix(ctx: RequestContext, tx: Executor, id: string, exclusiveNamespace: boolean): Promise<Row> {
    const seen = await this.service.findOne(ctx, tx, prefixResource, id, 'view');
    await lockNamespaces(tx, [String(seen.namespace_id)], exclusiveNamespace);
    return this.service.findOne(ctx, tx, prefixResource, String(seen.id), 'view', true);
  }

  /** `limit` as the reference reads it (default PAGINATE_COUNT), clamped so one listing stays bounded. */
  private limit(ctx: RequestContext, q: Query): number {
    const max = ctx.settings.MAX_PAGE_SIZE || AVAILABLE_IPS_CAP;
    const raw = first(q, 'limit');
    if (raw === undefined || raw.trim() === '') return Math.min(ctx.settings.PAGINATE_COUNT, max);
    if (!/^\s*\d+\s*$/.test(raw)) throw new ValidationError({ limit: ['A valid non-negative integer is required.'] });
    const n = Number(raw);
    return n === 0 ? max : Math.min(n, max);
  }

  /** Free addresses of the prefix within range_start..range_end (inclusive, optional); `parallel`: see freeAddresses. */
  private async freeIps(exec: Executor, prefix: Row, q: Query, limit: number, parallel = false): Promise<bigint[]> {
    const version = Number(prefix.ip_version) as IpVersion;
    const start = toBigInt(version, prefix.network);
    const end = toBigInt(version, prefix.broadcast);
    const bound = (name: string, fallback: bigint) => {
      const raw = first(q, name);
      if (raw === undefined || raw.trim() === '') return fallback;
      const a = parseAddress(raw);
      if (!a || a.version !== version) throw new ValidationError({ [name]: [`${raw} is not a valid IPv${version} address.`] });
      const n = toBigInt(version, a.bytes);
      if (n < start || n > end) throw new ValidationError({ [name]: [`${raw} is not within the prefix ${formatAddress(version, prefix.network)}/${prefix.prefix_length}.`] });
      return n;
    };
    // A network's first and last address are never free: the range stops short of them.
    const edge = reservesEdges(prefix) ? 1n : 0n;
    const lo = bound('range_start', start);
    const hi = bound('range_end', end);
    return freeAddresses(exec, { namespace: String(prefix.namespace_id), version }, lo > start + edge ? lo : start + edge, hi < end - edge ? hi : end - edge, limit, parallel);
  }
}
