import type { Executor, Row } from '../../database/db';
import { ident, raw, sql } from '../../database/sql';
import { fromBigInt, IpVersion, rangeToCidrs, sizeOf, toBigInt } from './ip';

/** Blocks are byte-aligned so they can be grouped by a prefix of the stored bytes: at most 256 per level. */
const FANOUT_BITS = 8;

export interface Space {
  namespace: string;
  version: IpVersion;
}

/** Does the prefix keep its first and last address out of allocation (IPv4 networks larger than a /31)? */
export function reservesEdges(p: Row): boolean {
  return Number(p.ip_version) === 4 && String(p.type) !== 'pool' && Number(p.prefix_length) < 31;
}

/**
 * The first `limit` free addresses in [lo, hi] (integers within the family) of a namespace,
 * skipping `excluded`. Cost is bounded by the block structure, not by the size of the range:
 * one statement counts the used addresses per block (at most 256 blocks); a block without any
 * is free without reading it, a full one is skipped, and only the first blocks with room are
 * opened (recursively, down to 256 addresses, which are read).
 */
export async function freeAddresses(exec: Executor, space: Space, lo: bigint, hi: bigint, limit: number, excluded: bigint[]): Promise<bigint[]> {
  const out: bigint[] = [];
  const skip = new Set(excluded);
  const where = (a: bigint, b: bigint) =>
    sql`${ident('namespace_id')} = ${space.namespace} AND ${ident('ip_version')} = ${space.version} AND ${ident('host')} >= ${fromBigInt(space.version, a)} AND ${ident('host')} <= ${fromBigInt(space.version, b)}`;

  const take = (a: bigint, b: bigint, used: Set<bigint>) => {
    for (let x = a; x <= b && out.length < limit; x++) if (!used.has(x) && !skip.has(x)) out.push(x);
  };

  const scan = async (a: bigint, b: bigint): Promise<void> => {
    const span = b - a + 1n;
    if (span <= 1n << BigInt(FANOUT_BITS)) {
      const rows = await exec.query<{ host: Buffer }>(sql`SELECT ${ident('host')} FROM ${ident('ipam_ipaddress')} WHERE ${where(a, b)}`);
      take(a, b, new Set(rows.map((r) => toBigInt(space.version, r.host))));
      return;
    }
    // Blocks of 2^blockBits addresses, aligned, at most 256 of them over the span.
    const spanBits = (span - 1n).toString(2).length;
    const blockBits = Math.max(FANOUT_BITS, Math.floor((spanBits - 1) / FANOUT_BITS) * FANOUT_BITS);
    const keyBytes = 16 - blockBits / 8;
    const rows = await exec.query<{ blk: Buffer; n: number }>(
      sql`SELECT SUBSTRING(${ident('host')} FROM 1 FOR ${raw(String(keyBytes))}) AS blk, COUNT(*) AS n FROM ${ident('ipam_ipaddress')}
          WHERE ${where(a, b)} GROUP BY SUBSTRING(${ident('host')} FROM 1 FOR ${raw(String(keyBytes))})`,
    );
    const used = new Map(rows.map((r) => [toBigInt(space.version, Buffer.concat([r.blk, Buffer.alloc(16 - keyBytes)])) >> BigInt(blockBits), Number(r.n)]));
    const size = 1n << BigInt(blockBits);
    for (let blk = a >> BigInt(blockBits); blk <= b >> BigInt(blockBits) && out.length < limit; blk++) {
      const from = blk * size > a ? blk * size : a;
      const to = blk * size + size - 1n < b ? blk * size + size - 1n : b;
      const n = used.get(blk) ?? 0;
      const reserved = excluded.filter((x) => x >= from && x <= to).length;
      if (n === 0) take(from, to, new Set());
      else if (reserved > 0 || BigInt(n) < to - from + 1n) await scan(from, to);
    }
  };

  if (lo <= hi && limit > 0) await scan(lo, hi);
  return out;
}

/** Free space of a prefix: its range minus its child prefixes, as the fewest CIDR blocks. */
export async function freePrefixes(exec: Executor, p: Row): Promise<{ network: bigint; length: number }[]> {
  const version = Number(p.ip_version) as IpVersion;
  const children = await exec.query<{ network: Buffer; broadcast: Buffer }>(
    sql`SELECT ${ident('network')}, ${ident('broadcast')} FROM ${ident('ipam_prefix')} WHERE ${ident('parent_id')} = ${p.id} ORDER BY ${ident('network')}`,
  );
  const out: { network: bigint; length: number }[] = [];
  let cur = toBigInt(version, p.network);
  const end = toBigInt(version, p.broadcast);
  for (const c of children) {
    const s = toBigInt(version, c.network);
    const e = toBigInt(version, c.broadcast);
    if (s > cur) out.push(...rangeToCidrs(version, cur, s - 1n));
    if (e + 1n > cur) cur = e + 1n;
  }
  if (cur <= end) out.push(...rangeToCidrs(version, cur, end));
  return out;
}

/**
 * Takes a block of `length` from the first free block that can hold it; returns its network, or
 * null when none can. The free list stays sorted and exact.
 */
export function allocatePrefix(version: IpVersion, free: { network: bigint; length: number }[], length: number): bigint | null {
  const i = free.findIndex((f) => f.length <= length);
  if (i < 0) return null;
  const block = free[i];
  const start = block.network;
  const rest = rangeToCidrs(version, start + sizeOf(version, length), block.network + sizeOf(version, block.length) - 1n);
  free.splice(i, 1, ...rest);
  return start;
}

