import type { RequestContext } from '../../core/context';
import type { Executor, Row } from '../../database/db';
import { ident, inList, join, raw, Sql, sql } from '../../database/sql';
import { BITS, IpVersion } from './ip';

/**
 * Prefix utilization, as a percentage, for a page of prefixes in one statement (the reference
 * computes it per prefix in Python and does not show it in the API):
 * - container: space of the child prefixes;
 * - network: space of the child prefixes plus the addresses directly in the prefix;
 * - pool: the addresses in the prefix.
 * An IPv4 network prefix larger than a /31 does not count its network and broadcast addresses
 * as usable unless a child prefix or an address uses them. Counted with the children and the
 * direct addresses (those whose parent it is): an address at the edge of a prefix that a child
 * holds has that child for parent, and then the child starts or ends at the same edge (parents
 * are kept as the longest containing prefix on every write).
 *
 * The statement is a UNION of grouped, index-served aggregates over the page's ids, one part
 * per quantity, each only for the prefixes that need it (correlated subqueries per row made
 * PostgreSQL estimate a cost high enough to JIT-compile the query, which took longer than
 * running it).
 */
export async function prefixUtilization(rows: Row[], _ctx: RequestContext, exec: Executor): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  if (!rows.length) return out;
  const ids = (pred: (r: Row) => boolean) => rows.filter(pred).map((r) => r.id);
  const network = ids((r) => r.type === 'network');
  const spaced = ids((r) => r.type !== 'pool');
  const pools = ids((r) => r.type === 'pool');
  const c = (col: string) => ident('c', col);
  const p = (col: string) => ident('p', col);
  const i = (col: string) => ident('i', col);
  const parts: Sql[] = [];
  // Per prefix: a quantity, and how many of the rows counted sit at its network or broadcast address.
  const part = (kind: string, id: Sql, value: Sql, edge: Sql, from: Sql, where: Sql) =>
    parts.push(sql`SELECT ${raw(`'${kind}'`)} AS k, ${id} AS id, ${value} AS v, ${edge} AS e FROM ${from} WHERE ${where} GROUP BY ${id}`);
  const bits = sql`CASE WHEN ${c('ip_version')} = 4 THEN 32 ELSE 128 END`;
  const atEdge = (network: Sql, broadcast: Sql) => sql`COUNT(CASE WHEN ${network} = ${p('network')} OR ${broadcast} = ${p('broadcast')} THEN 1 END)`;
  const parent = (col: Sql) => sql`JOIN ${ident('ipam_prefix')} p ON ${p('id')} = ${col}`;
  if (spaced.length) {
    part('space', c('parent_id'), sql`SUM(POWER(2, ${bits} - ${c('prefix_length')}))`, atEdge(c('network'), c('broadcast')), sql`${ident('ipam_prefix')} c ${parent(c('parent_id'))}`, inList(c('parent_id'), spaced));
  }
  if (network.length) {
    part('direct', i('parent_id'), sql`COUNT(*)`, atEdge(i('host'), i('host')), sql`${ident('ipam_ipaddress')} i ${parent(i('parent_id'))}`, inList(i('parent_id'), network));
  }
  if (pools.length) {
    const inside = sql`${i('namespace_id')} = ${p('namespace_id')} AND ${i('ip_version')} = ${p('ip_version')} AND ${i('host')} >= ${p('network')} AND ${i('host')} <= ${p('broadcast')}`;
    part('pool', p('id'), sql`COUNT(*)`, sql`0`, sql`${ident('ipam_prefix')} p JOIN ${ident('ipam_ipaddress')} i ON ${inside}`, inList(p('id'), pools));
  }
  const sums = new Map<string, Record<string, number>>();
  if (parts.length) {
    const list = await exec.query<{ k: string; id: string; v: number; e: number }>(join(parts, ' UNION ALL '));
    for (const r of list) {
      const s = sums.get(String(r.id)) ?? {};
      s[r.k] = (s[r.k] ?? 0) + Number(r.v);
      s.edge = (s.edge ?? 0) + Number(r.e);
      sums.set(String(r.id), s);
    }
  }
  for (const r of rows) {
    const s = sums.get(String(r.id)) ?? {};
    const type = String(r.type);
    let size = 2 ** (BITS[Number(r.ip_version) as IpVersion] - Number(r.prefix_length));
    const used = type === 'pool' ? (s.pool ?? 0) : (s.space ?? 0) + (type === 'network' ? (s.direct ?? 0) : 0);
    if (edgesReserved(r) && !s.edge) size -= 2;
    out.set(String(r.id), Math.round((used / size) * 10000) / 100);
  }
  return out;
}

/** IPv4 network prefixes larger than a /31 count their first and last address as usable only when in use. */
function edgesReserved(r: Row): boolean {
  return r.type === 'network' && Number(r.ip_version) === 4 && Number(r.prefix_length) < 31;
}
