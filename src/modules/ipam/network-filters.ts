import type { CustomFilter, CustomFilterHelpers, ResourceDefinition } from '../../core/resource/definition';
import { checkRegex, escapeLike } from '../../core/resource/query/lookups';
import { isUuid, parseUuid } from '../../core/resource/query/values';
import { and, FALSE, ident, inList, or, Sql, sql } from '../../database/sql';
import { BITS, IpError, IpVersion, Network, parseAddress, parseCidr, parseNetwork, supernets } from './ip';

/**
 * The columns of a network field: `start` (network or host bytes), `end` and `length` for
 * networks (absent for single addresses), the family, and the text form for string lookups.
 */
export interface NetColumns {
  start: string;
  end?: string;
  length?: string;
  version: string;
  text: string;
}

export const PREFIX_COLUMNS: NetColumns = { start: 'network', end: 'broadcast', length: 'prefix_length', version: 'ip_version', text: 'network_text' };
export const HOST_COLUMNS: NetColumns = { start: 'host', version: 'ip_version', text: 'host_text' };

export const STRING_LOOKUPS = ['exact', 'iexact', 'startswith', 'istartswith', 'endswith', 'iendswith', 'regex', 'iregex'];
export const NET_LOOKUPS = [
  'net_contained',
  'net_contained_or_equal',
  'net_contains',
  'net_contains_or_equals',
  'net_equals',
  'net_host',
  'net_host_contained',
  'net_in',
  'family',
];

/** `network`, `network__<lookup>` (or `host...`): the lookups of spec 4.4; repeated values OR. */
export function networkFilter(cols: NetColumns): CustomFilter {
  return {
    lookups: ['', ...STRING_LOOKUPS, ...NET_LOOKUPS],
    compile: (values, lookup, h) => or(values.map((v) => netCondition(cols, lookup, String(v), h))),
  };
}

/** A filter that applies one lookup to every value (`within`, `prefix`, ...). */
export function lookupFilter(cols: NetColumns, lookup: string | ((value: string) => string)): CustomFilter {
  return { compile: (values, _l, h) => or(values.map((v) => netCondition(cols, typeof lookup === 'string' ? lookup : lookup(String(v)), String(v), h))) };
}

function network(value: string, h: CustomFilterHelpers): Network {
  try {
    return parseNetwork(value);
  } catch (e) {
    return h.invalid(e instanceof IpError ? e.message : String(e));
  }
}

function address(value: string, h: CustomFilterHelpers): { version: IpVersion; bytes: Buffer; length: number } {
  try {
    const c = parseCidr(value);
    return { version: c.version, bytes: c.address, length: c.length };
  } catch (e) {
    return h.invalid(e instanceof IpError ? e.message : String(e));
  }
}

/** One lookup on one value, as a condition over index-friendly comparisons of the byte columns. */
export function netCondition(cols: NetColumns, lookup: string, value: string, h: CustomFilterHelpers): Sql {
  const d = h.exec.dialect;
  const text = h.col(cols.text);
  switch (lookup) {
    case '':
    case 'net_in': {
      // An address (any mask ignored).
      const a = address(value, h);
      return and([sql`${h.col(cols.version)} = ${a.version}`, sql`${h.col(cols.start)} = ${a.bytes}`]);
    }
    case 'net_host': {
      const a = address(value, h);
      return networkCondition(cols, 'net_contains_or_equals', { version: a.version, network: a.bytes, broadcast: a.bytes, length: BITS[a.version] }, h);
    }
    case 'exact':
      return sql`${text} = ${value}`;
    case 'iexact':
      return sql`${d.lower(text)} = ${value.toLowerCase()}`;
    case 'startswith':
      return d.like(text, escapeLike(value) + '%');
    case 'istartswith':
      return d.ilike(text, escapeLike(value) + '%');
    case 'endswith':
      return d.like(text, '%' + escapeLike(value));
    case 'iendswith':
      return d.ilike(text, '%' + escapeLike(value));
    case 'regex':
    case 'iregex':
      return d.regex(text, checkRegex(value), lookup === 'iregex');
    case 'family':
      if (value !== '4' && value !== '6') return h.invalid(`Select a valid choice. ${value} is not one of the available choices.`);
      return sql`${h.col(cols.version)} = ${Number(value)}`;
    default:
      if (!NET_LOOKUPS.includes(lookup)) return h.invalid(`Unsupported lookup "${lookup}".`);
      return networkCondition(cols, lookup, network(value, h), h);
  }
}

/**
 * A containment lookup against a parsed network. Single addresses (no `end`/`length` columns)
 * behave as /32 or /128 networks. Every condition names the family and compares the start
 * column against bounds (a range scan) or against a short list of networks (point lookups).
 */
export function networkCondition(cols: NetColumns, lookup: string, n: Network, h: CustomFilterHelpers): Sql {
  const c = (name: string) => h.col(name);
  const family = sql`${c(cols.version)} = ${n.version}`;
  const isNet = !!cols.end && !!cols.length;
  const full = n.length === BITS[n.version];
  const inRange = and([family, sql`${c(cols.start)} >= ${n.network}`, sql`${c(cols.start)} <= ${n.broadcast}`]);
  const equal = and([family, sql`${c(cols.start)} = ${n.network}`]);
  // Networks (of length <= max) that contain n: their start is n's network masked at their length.
  const containing = (max: number) => {
    if (max < 0) return FALSE;
    const starts = supernets(n.version, n.network, 0, max).map((s) => s.network);
    const unique = [...new Map(starts.map((b) => [b.toString('hex'), b])).values()];
    return and([family, inList(c(cols.start), unique), sql`${c(cols.end!)} >= ${n.broadcast}`, sql`${c(cols.length!)} <= ${max}`]);
  };
  switch (lookup) {
    case 'net_equals':
      return isNet ? and([equal, sql`${c(cols.length!)} = ${n.length}`]) : full ? equal : FALSE;
    case 'net_contained':
      return isNet ? and([inRange, sql`${c(cols.length!)} > ${n.length}`]) : full ? FALSE : inRange;
    case 'net_contained_or_equal':
      return isNet ? and([inRange, sql`${c(cols.length!)} >= ${n.length}`]) : inRange;
    case 'net_contains':
      return isNet ? containing(n.length - 1) : FALSE;
    case 'net_contains_or_equals':
      return isNet ? containing(n.length) : full ? equal : FALSE;
    case 'net_host_contained':
      return inRange;
    default:
      return h.invalid(`Unsupported lookup "${lookup}".`);
  }
}

/**
 * `parent`: parent prefixes by UUID (each must exist and be visible, as for any foreign key) or
 * by CIDR (`10.0.0.0/16`, matching that network in any namespace). Anything else is not a
 * valid choice, in the words of any foreign-key filter.
 */
export function parentFilter(prefixes: () => ResourceDefinition): CustomFilter {
  return {
    compile: async (values, _l, h) => {
      const uuids = values.filter(isUuid).map((v) => parseUuid(v));
      const cidrs = values.filter((v) => !isUuid(v)).map(String);
      for (const c of cidrs) if (!c.includes('/') && !parseAddress(c)) h.invalid(`Select a valid choice. ${c} is not one of the available choices.`);
      const ids = uuids.length ? await h.resolveIds(prefixes(), uuids) : [];
      // By CIDR among the prefixes the requester may view (all of them in a permission constraint).
      const byCidr = await Promise.all(
        cidrs.map(async (c) => {
          const n = network(c, h);
          const pp = (col: string) => ident('pp', col);
          return sql`${h.col('parent_id')} IN ${(await h.rows(prefixes(), 'pp')).select('id', sql`${pp('ip_version')} = ${n.version} AND ${pp('network')} = ${n.network} AND ${pp('prefix_length')} = ${n.length}`)}`;
        }),
      );
      return or([ids.length ? inList(h.col('parent_id'), ids) : null, ...byCidr]);
    },
  };
}

/**
 * A partial address as the reference's search reads it: `10.10` is 10.10.0.0/16, `2001:db8` is
 * 2001:db8::/32, a bare number below 256 may be either family. Unparseable input gives none.
 */
export function partialNetworks(input: string): Network[] {
  const s = input.trim().split('/')[0];
  if (!s) return [];
  const full = parseAddress(s);
  if (full) return [parseNetwork(s)];
  const out: Network[] = [];
  const v4 = s.split('.').filter(Boolean);
  if (!s.includes(':') && v4.length <= 4 && v4.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)) {
    out.push(parseNetwork(`${[...v4, '0', '0', '0', '0'].slice(0, 4).join('.')}/${8 * v4.length}`));
  }
  const v6 = s.split(':').filter(Boolean);
  if ((s.includes(':') || /^[0-9a-f]{1,4}$/i.test(s)) && v6.length <= 7 && v6.every((x) => /^[0-9a-f]{1,4}$/i.test(x))) {
    const padded = [...v6, ...Array(8 - v6.length).fill('0')].join(':');
    out.push(parseNetwork(`${padded}/${16 * v6.length}`));
  }
  return out;
}

/** `q` for networks: the networks within, or containing, the partial address; for addresses, those within it. */
export function searchFilter(cols: NetColumns): CustomFilter {
  return {
    compile: (values, _l, h) =>
      or(
        values.flatMap((v) =>
          partialNetworks(String(v)).flatMap((n) =>
            cols.end ? [networkCondition(cols, 'net_contained_or_equal', n, h), networkCondition(cols, 'net_contains', n, h)] : [networkCondition(cols, 'net_host_contained', n, h)],
          ),
        ),
      ),
  };
}
