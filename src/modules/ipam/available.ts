import type { Executor, Row } from '../../database/db';
import { ident, join, Sql, sql } from '../../database/sql';
import { fromBigInt, IpVersion, rangeToCidrs, sizeOf, toBigInt } from './ip';

/** Sub-ranges counted per statement when a range is too large to read (one scalar count each). */
const FANOUT = 16;
/** A range of at most this many addresses, or a block with at most this many in use, is read rather than counted. */
const READ_MAX = 256;
/**
 * Statements a range's block counts are spread over, each on its own connection, where the
 * caller may use several (not in a transaction): a statement counts on one thread of the
 * database, and MariaDB counts ~300 ns an index entry (a nearly full /16's 65,000: ~20 ms alone,
 * ~12 ms over two).
 */
const COUNTING_STATEMENTS = 2;

export interface Space {
  namespace: string;
  version: IpVersion;
}

/** Does the prefix keep its first and last address out of allocation (IPv4 networks larger than a /31)? */
export function reservesEdges(p: Row): boolean {
  return Number(p.ip_version) === 4 && String(p.type) !== 'pool' && Number(p.prefix_length) < 31;
}

/** What the first free addresses of a counted block take: all of it free, its used addresses read, or counted again. */
type Step = { kind: 'free' | 'read' | 'count'; from: bigint; to: bigint };

/**
 * The first `limit` free addresses in [lo, hi] (integers within the family) of a namespace.
 * Cost is bounded by the addresses in use in the range, each walked about once at the speed of an
 * index-only count, not by the size of the range nor by per-address work:
 * - a range of at most READ_MAX addresses is read (its used addresses, in order) and its free
 *   ones are the gaps between them;
 * - a larger one is split into FANOUT blocks counted in one statement (a scalar COUNT per
 *   block: an index range each; grouping every row by a prefix of its bytes hashed each row and
 *   took twice as long). Full blocks are skipped, empty ones are free without reading; a block
 *   with `n` in use holds its first `k` free addresses within its first n + k addresses, so
 *   only that much of it is read (n <= READ_MAX: one statement for all such blocks) or counted
 *   again, which narrows a sparse block of any size at once.
 * An empty /8 costs one statement, a nearly full /16 three (two counts and one read); with
 * `parallel` (an executor that may run statements side by side: the pool, outside a transaction)
 * each count is COUNTING_STATEMENTS statements run at once.
 */
export async function freeAddresses(exec: Executor, space: Space, lo: bigint, hi: bigint, limit: number, parallel = false): Promise<bigint[]> {
  const inRange = (a: bigint, b: bigint) =>
    sql`${ident('namespace_id')} = ${space.namespace} AND ${ident('ip_version')} = ${space.version} AND ${ident('host')} >= ${fromBigInt(space.version, a)} AND ${ident('host')} <= ${fromBigInt(space.version, b)}`;
  const hosts = (a: bigint, b: bigint) => sql`SELECT ${ident('host')} FROM ${ident('ipam_ipaddress')} WHERE ${inRange(a, b)}`;

  /** Free addresses of [a, b] given its used ones (any order), as ranges between them; at most `max`. */
  const gaps = (a: bigint, b: bigint, used: bigint[], max: number): bigint[] => {
    const found: bigint[] = [];
    let next = a;
    for (const u of [...used.filter((x) => x >= a && x <= b).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)), b + 1n]) {
      for (let x = next; x < u && found.length < max; x++) found.push(x);
      if (found.length >= max) break;
      next = u + 1n;
    }
    return found;
  };

  const scan = async (a: bigint, b: bigint, max: number): Promise<bigint[]> => {
    if (b - a + 1n <= BigInt(READ_MAX)) {
      const rows = await exec.query<{ host: Buffer }>(hosts(a, b));
      return gaps(a, b, rows.map((r) => toBigInt(space.version, r.host)), max);
    }
    const size = (b - a + BigInt(FANOUT)) / BigInt(FANOUT);
    const blocks: { from: bigint; to: bigint }[] = [];
    for (let from = a; from <= b; from += size) blocks.push({ from, to: from + size - 1n < b ? from + size - 1n : b });
    const counted = blocks.map((k, i) => sql`(SELECT COUNT(*) FROM ${ident('ipam_ipaddress')} WHERE ${inRange(k.from, k.to)}) AS ${ident(`n${i}`)}`);
    const per = Math.ceil(counted.length / (parallel ? COUNTING_STATEMENTS : 1));
    const parts: Sql[][] = [];
    for (let i = 0; i < counted.length; i += per) parts.push(counted.slice(i, i + per));
    const counts: Row = Object.assign({}, ...(await Promise.all(parts.map((part) => exec.query<Row>(sql`SELECT ${join(part, ', ')}`)))).map((rows) => rows[0]));
    // The blocks that hold the first `max` free addresses, and what each needs.
    const steps: Step[] = [];
    let wanted = BigInt(max);
    blocks.forEach((k, i) => {
      const used = BigInt(counts[`n${i}`]);
      const room = k.to - k.from + 1n - used;
      if (wanted <= 0n || room <= 0n) return;
      const take = room < wanted ? room : wanted;
      const to = k.from + used + take - 1n < k.to ? k.from + used + take - 1n : k.to;
      steps.push({ kind: used === 0n ? 'free' : used <= BigInt(READ_MAX) ? 'read' : 'count', from: k.from, to });
      wanted -= take;
    });
    const reads = steps.filter((s) => s.kind === 'read');
    const read = reads.length
      ? (await exec.query<{ host: Buffer }>(join(reads.map((s) => hosts(s.from, s.to)), ' UNION ALL '))).map((r) => toBigInt(space.version, r.host))
      : [];
    const found: bigint[] = [];
    for (const s of steps) {
      const left = max - found.length;
      if (left <= 0) break;
      if (s.kind === 'free') found.push(...gaps(s.from, s.to, [], left));
      else if (s.kind === 'read') found.push(...gaps(s.from, s.to, read, left));
      else found.push(...(await scan(s.from, s.to, left)));
    }
    return found;
  };

  return lo <= hi && limit > 0 ? scan(lo, hi, limit) : [];
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

