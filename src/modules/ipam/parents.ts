import { ConflictError, ValidationError } from '../../core/resource/errors';
import type { Executor, Row } from '../../database/db';
import { and, ident, inList, join, not, or, raw, Sql, sql } from '../../database/sql';
import { chunks } from '../../core/resource/resource-writer';
import { BITS, formatCidr, hex, IpVersion, maskBytes } from './ip';
import { append } from '../../core/collections';

/**
 * Parents of prefixes and addresses (Nautobot's "closest parent"): the longest prefix of the
 * same namespace and family that contains them. Kept correct on every write, in a bounded
 * number of set-based statements, under a lock on the namespace:
 * - prefix writes hold the namespace row exclusively, address writes share it, so a prefix
 *   never appears under an address while that address is being placed;
 * - the invariant "parent = longest containing prefix" holds before a write, and each step
 *   below keeps it.
 */

const PREFIX = 'ipam_prefix';
const ADDRESS = 'ipam_ipaddress';
const STATEMENT_VALUES = 500;

/** Locks namespace rows (sorted, so concurrent writers take them in the same order). */
export async function lockNamespaces(exec: Executor, ids: Iterable<string>, exclusive: boolean): Promise<void> {
  const list = [...new Set([...ids].filter(Boolean))].sort();
  if (!list.length) return;
  const lock = raw(exclusive ? exec.dialect.forUpdate : exec.dialect.lockShared);
  await exec.query(sql`SELECT ${ident('id')} FROM ${ident('ipam_namespace')} WHERE ${inList(ident('id'), list)} ORDER BY ${ident('id')}${lock}`);
}

/**
 * The distinct prefix lengths present in a namespace and family: one index probe per possible
 * length (33 or 129), as scalar subqueries of a single row. Portable: no recursive CTE (MySQL
 * restricts what its recursive part may contain) and nothing the planner could turn into a scan.
 */
export async function prefixLengths(exec: Executor, namespace: string, version: IpVersion): Promise<number[]> {
  const probes = Array.from(
    { length: BITS[version] + 1 },
    (_, l) =>
      sql`(SELECT 1 FROM ${ident(PREFIX)} p WHERE p.${ident('namespace_id')} = ${namespace} AND p.${ident('ip_version')} = ${raw(String(version))}
          AND p.${ident('prefix_length')} = ${raw(String(l))} LIMIT 1) AS ${ident(`l${l}`)}`,
  );
  const [row] = await exec.query(sql`SELECT ${join(probes)}`);
  return Object.keys(row ?? {})
    .filter((k) => row[k] !== null && row[k] !== undefined)
    .map((k) => Number(k.slice(1)))
    .sort((a, b) => a - b);
}

export interface MatchQuery {
  /** Address or network bytes. */
  bytes: Buffer;
  /** Longest prefix length that may match (the address's full length, or a prefix's length - 1). */
  maxLength: number;
}

/**
 * For each query, every prefix of the namespace that contains it (up to maxLength), longest
 * first. Candidates are exact (network, length) pairs of the lengths that exist, so each is an
 * index point lookup; a batch of clustered addresses shares most of them.
 */
export async function containingPrefixes(exec: Executor, namespace: string, version: IpVersion, queries: MatchQuery[]): Promise<Row[][]> {
  if (!queries.length) return [];
  const lengths = await prefixLengths(exec, namespace, version);
  const wanted = new Map<number, Map<string, Buffer>>();
  const keys = queries.map((q) =>
    lengths
      .filter((l) => l <= q.maxLength)
      .reverse()
      .map((l) => {
        const m = maskBytes(version, q.bytes, l);
        const k = hex(m);
        if (!wanted.has(l)) wanted.set(l, new Map());
        wanted.get(l)!.set(k, m);
        return `${l}:${k}`;
      }),
  );
  const found = new Map<string, Row>();
  let conds: Sql[] = [];
  let size = 0;
  const flush = async () => {
    if (!conds.length) return;
    const rows = await exec.query(
      sql`SELECT ${join(['id', 'network', 'broadcast', 'prefix_length', 'parent_id', 'network_text'].map((c) => ident(c)))} FROM ${ident(PREFIX)}
          WHERE ${ident('namespace_id')} = ${namespace} AND ${ident('ip_version')} = ${version} AND ${or(conds)}`,
    );
    for (const r of rows) found.set(`${Number(r.prefix_length)}:${hex(r.network)}`, r);
    conds = [];
    size = 0;
  };
  for (const [l, nets] of wanted) {
    for (const part of chunks([...nets.values()], STATEMENT_VALUES)) {
      conds.push(sql`(${ident('prefix_length')} = ${l} AND ${inList(ident('network'), part)})`);
      size += part.length;
      if (size >= STATEMENT_VALUES) await flush();
    }
  }
  await flush();
  return keys.map((list) => list.map((k) => found.get(k)).filter((r): r is Row => !!r));
}

const cidrOf = (r: Row) => formatCidr(Number(r.ip_version ?? 4) as IpVersion, r.network, Number(r.prefix_length));

/** CASE id WHEN ... THEN ... END updates of one column, in chunks. */
async function setColumn(exec: Executor, table: string, column: string, match: string, changes: [string, string | null][], where: Sql | null = null): Promise<void> {
  const d = exec.dialect;
  for (const part of chunks(changes, STATEMENT_VALUES)) {
    const cases = part.map(([k, v]) => sql` WHEN ${k} THEN ${d.typedParam(v, 'uuid')}`);
    await exec.execute(
      sql`UPDATE ${ident(table)} SET ${ident(column)} = CASE ${ident(match)}${join(cases, '')} END WHERE ${and([inList(ident(match), part.map(([k]) => k)), where])}`,
    );
  }
}

/**
 * Prefixes that leave their place (deleted, or about to be re-placed after a change of network
 * or namespace): their children and addresses move to the nearest ancestor that stays. Returns
 * the ids whose addresses were left without any parent (their namespace root went away).
 */
export async function releasePrefixes(exec: Executor, removed: Row[]): Promise<Set<string>> {
  const ids = new Set(removed.map((r) => String(r.id)));
  const oldParent = new Map(removed.map((r) => [String(r.id), r.parent_id ? String(r.parent_id) : null]));
  const surviving = (id: string) => {
    let p = oldParent.get(id) ?? null;
    while (p && ids.has(p)) p = oldParent.get(p) ?? null;
    return p;
  };
  const changes: [string, string | null][] = [...ids].map((id) => [id, surviving(id)]);
  if (!changes.length) return new Set();
  await setColumn(exec, PREFIX, 'parent_id', 'parent_id', changes);
  await setColumn(exec, ADDRESS, 'parent_id', 'parent_id', changes);
  return new Set(changes.filter(([, s]) => s === null).map(([id]) => id));
}

/** Refuses to delete root prefixes that hold addresses (the reference's protection), before anything moves. */
export async function checkDeletable(exec: Executor, removed: Row[]): Promise<void> {
  const byId = new Map(removed.map((x) => [String(x.id), x]));
  // Deleted prefixes whose ancestors all go too: their addresses would have nowhere to go.
  const roots = removed.filter((r) => {
    let p = r.parent_id ? String(r.parent_id) : null;
    while (p && byId.has(p)) p = byId.get(p)!.parent_id ? String(byId.get(p)!.parent_id) : null;
    return p === null;
  });
  if (!roots.length) return;
  const [hit] = await exec.query<{ parent_id: string }>(
    sql`SELECT ${ident('parent_id')} FROM ${ident(ADDRESS)} WHERE ${inList(ident('parent_id'), roots.map((r) => String(r.id)))} LIMIT 1`,
  );
  if (hit) {
    const p = roots.find((r) => String(r.id) === String(hit.parent_id))!;
    throw new ConflictError(`Cannot delete Prefix ${cidrOf(p)} because it has child IPAddress objects that would no longer have a valid parent.`);
  }
}

/**
 * Prefixes that take a place (created, or re-placed), their rows already holding the new
 * values: each gets its closest parent, then takes over the prefixes and addresses inside it
 * whose parent was that ancestor (they are exactly its new direct children).
 */
export async function placePrefixes(exec: Executor, added: Row[]): Promise<void> {
  const groups = new Map<string, Row[]>();
  for (const p of added) {
    const k = `${p.namespace_id}|${p.ip_version}`;
    append(groups, k, p);
  }
  for (const list of groups.values()) {
    const namespace = String(list[0].namespace_id);
    const version = Number(list[0].ip_version) as IpVersion;
    const addedIds = new Set(list.map((p) => String(p.id)));
    const chains = await containingPrefixes(exec, namespace, version, list.map((p) => ({ bytes: p.network, maxLength: Number(p.prefix_length) - 1 })));
    const parentChanges: [string, string | null][] = [];
    const claims: { p: Row; from: (string | null)[] }[] = [];
    list.forEach((p, i) => {
      const chain = chains[i];
      // Always written: releasing may have moved a re-placed prefix since its row was read.
      parentChanges.push([String(p.id), chain[0] ? String(chain[0].id) : null]);
      // Before this batch, items inside p hung from the longest older ancestor of p (or from
      // nothing); items already moved under a batch ancestor of p are taken over as well.
      const older = chain.find((r) => !addedIds.has(String(r.id)));
      const fromBatch = chain.filter((r) => addedIds.has(String(r.id))).map((r) => String(r.id));
      claims.push({ p, from: [older ? String(older.id) : null, ...fromBatch] });
    });
    await setColumn(exec, PREFIX, 'parent_id', 'id', parentChanges);
    // Innermost first: an item inside two new prefixes belongs to the longer one.
    claims.sort((a, b) => Number(b.p.prefix_length) - Number(a.p.prefix_length));
    const scope = sql`${ident('namespace_id')} = ${namespace} AND ${ident('ip_version')} = ${version}`;
    for (const part of chunks(claims, STATEMENT_VALUES)) {
      const cond = (c: (typeof claims)[number], start: string, prefixes: boolean) => {
        const ids = c.from.filter((x): x is string => !!x);
        const fromCond = or([c.from.includes(null) ? sql`${ident('parent_id')} IS NULL` : null, ids.length ? inList(ident('parent_id'), ids) : null]);
        return and([
          sql`${ident(start)} >= ${c.p.network}`,
          sql`${ident(start)} <= ${c.p.broadcast}`,
          prefixes ? sql`${ident('prefix_length')} > ${Number(c.p.prefix_length)}` : null,
          fromCond,
        ]);
      };
      // Through the index that leads with the scope, then the ranges' column.
      const update = (table: string, index: string, start: string, prefixes: boolean) => {
        const whens = part.map((c) => sql` WHEN ${cond(c, start, prefixes)} THEN ${exec.dialect.typedParam(String(c.p.id), 'uuid')}`);
        const notBatch = prefixes ? not(inList(ident('id'), [...addedIds])) : null;
        return exec.execute(
          sql`UPDATE ${ident(table)}${exec.dialect.forceIndex(index)} SET ${ident('parent_id')} = CASE${join(whens, '')} ELSE ${ident('parent_id')} END WHERE ${and([scope, notBatch, or(part.map((c) => cond(c, start, prefixes)))])}`,
        );
      };
      await update(PREFIX, 'ipam_prefix_namespace_order_idx', 'network', true);
      await update(ADDRESS, 'ipam_ipaddress_namespace_host_key', 'host', false);
    }
  }
}

/** After a write: addresses left without a parent make the whole write fail (the reference's message). */
export async function checkOrphans(exec: Executor, namespaces: Iterable<string>): Promise<void> {
  const list = [...new Set(namespaces)];
  if (!list.length) return;
  const [r] = await exec.query<{ n: number; h: string | null }>(
    sql`SELECT COUNT(*) AS n, MIN(${ident('host_text')}) AS h FROM ${ident(ADDRESS)} WHERE ${ident('parent_id')} IS NULL AND ${inList(ident('namespace_id'), list)}`,
  );
  if (Number(r?.n ?? 0) > 0) {
    throw new ValidationError({ __all__: [`${Number(r.n)} existing IP addresses (including ${r.h}) would no longer have a valid parent Prefix after this change.`] });
  }
}
