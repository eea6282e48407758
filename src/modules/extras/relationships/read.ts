/** The `relationships` block of a batch of objects (include=relationships, write responses). */
import type { Executor, Row } from '../../../database/db';
import { ident, inList, or, sql } from '../../../database/sql';
import type { RequestContext } from '../../../core/context';
import { objectType } from '../../../core/resource/definition';
import type { ExtensionContext, NestedObjects } from '../../../core/resource/extension';
import { unscoped } from '../../../core/resource/query/rows';
import { visibleRows } from '../../../core/resource/query/scope';
import { ref } from '../../../core/resource/serialize/batch';
import { ASSOCIATION_TYPE, filterOf, matchingIds, OPPOSITE, RELATIONSHIP_TYPE, RelationshipInfo, relationshipsOf, Side, sideLabel, sidesOf, typeOfSide } from './definitions';

export interface Assoc {
  id: string;
  rel: string;
  sid: string;
  did: string;
  st: string;
  dt: string;
}

/** The associations of some relationships that involve some objects of a model: one statement (over the (type, id) indexes). */
export async function associationsOf(exec: Executor, ctx: RequestContext, type: string, rels: string[], ids: string[]): Promise<Assoc[]> {
  const def = ctx.registry.get(ASSOCIATION_TYPE);
  if (!def || !rels.length || !ids.length) return [];
  // Associations are bookkeeping of the objects they join: who may see them is decided by
  // the objects (the peers shown are only those the requester may view).
  const rows = await exec.query(
    sql`SELECT ${ident('id')}, ${ident('relationship_id')}, ${ident('source_type')}, ${ident('source_id')}, ${ident('destination_type')}, ${ident('destination_id')} ${unscoped(def).from(
      inList(ident('relationship_id'), rels),
      or([sql`(${ident('source_type')} = ${type} AND ${inList(ident('source_id'), ids)})`, sql`(${ident('destination_type')} = ${type} AND ${inList(ident('destination_id'), ids)})`]),
    )} ORDER BY ${ident('created')}, ${ident('id')}`,
  );
  return rows.map((r) => ({ id: String(r.id), rel: String(r.relationship_id), sid: String(r.source_id), did: String(r.destination_id), st: String(r.source_type), dt: String(r.destination_type) }));
}

/** The peer of an object on one side of an association (undefined: the object is not on that side). */
export function peerOf(a: Assoc, r: RelationshipInfo, type: string, side: Side, id: string): { type: string; id: string } | undefined {
  if (side === 'source') return a.st === type && a.sid === id ? { type: a.dt, id: a.did } : undefined;
  if (side === 'destination') return a.dt === type && a.did === id ? { type: a.st, id: a.sid } : undefined;
  void r;
  if (a.sid === id && a.st === type) return { type: a.dt, id: a.did };
  if (a.did === id && a.dt === type) return { type: a.st, id: a.sid };
  return undefined;
}

/** Which (relationship, side) pairs apply to which objects of a page: a side's filter may exclude some (one statement per filtered side). */
async function applicable(x: ExtensionContext, rels: RelationshipInfo[], ids: string[]): Promise<Map<string, Set<string> | null>> {
  const type = objectType(x.def);
  const out = new Map<string, Set<string> | null>();
  for (const r of rels) {
    for (const side of sidesOf(r, type)) {
      const filter = filterOf(r, side);
      out.set(`${r.id}:${side}`, filter ? await matchingIds(x.ctx, x.exec, x.def, filter, ids) : null);
    }
  }
  return out;
}

export type Loaded = Map<string, Record<string, unknown>>;

/**
 * `include=relationships` for a batch: one statement for the associations, one per peer model
 * (the peers the requester may view: references at depth 0, nested objects one level down
 * otherwise), one per filtered side.
 */
export async function load(x: ExtensionContext & NestedObjects, rows: Row[]): Promise<Loaded | null> {
  const rels = await relationshipsOf(x.ctx, x.exec, x.def);
  if (!rels.length || !rows.length) return null;
  const type = objectType(x.def);
  const ids = rows.map((r) => String(r.id));
  const [apply, assocs] = await Promise.all([applicable(x, rels, ids), associationsOf(x.exec, x.ctx, type, rels.map((r) => r.id), ids)]);
  const byRel = new Map(rels.map((r) => [r.id, r]));
  const peers = new Map<string, Set<string>>();
  for (const a of assocs) {
    const r = byRel.get(a.rel)!;
    for (const side of sidesOf(r, type)) {
      for (const id of [a.sid, a.did]) {
        const p = peerOf(a, r, type, side, id);
        if (p) (peers.get(p.type) ?? peers.set(p.type, new Set()).get(p.type)!).add(p.id);
      }
    }
  }
  // Peers the requester may view, by type: one statement each.
  const visible = new Map<string, Map<string, Record<string, unknown>>>();
  await Promise.all(
    [...peers].map(async ([t, set]) => {
      const def = x.ctx.registry.get(t);
      if (!def) return;
      if (x.depth > 0) {
        visible.set(t, await x.nested(def, [...set]));
        return;
      }
      const rows = await x.exec.query<{ id: string }>(sql`SELECT ${ident('p', 'id')} AS ${ident('id')} ${(await visibleRows(x.ctx, x.exec, def, 'p')).from(inList(ident('p', 'id'), [...set]))}`);
      visible.set(t, new Map(rows.map((r) => [String(r.id), ref(x.ctx, def, String(r.id))])));
    }),
  );
  // Each object's associations by relationship, in their order: the page is read in one pass.
  const mine = new Map<string, Map<string, Assoc[]>>(rels.map((r) => [r.id, new Map()]));
  for (const a of assocs) {
    const byObject = mine.get(a.rel)!;
    for (const id of a.sid === a.did && a.st === a.dt ? [a.sid] : [a.sid, a.did]) {
      const list = byObject.get(id);
      if (list) list.push(a);
      else byObject.set(id, [a]);
    }
  }
  const relUrl = x.ctx.registry.get(RELATIONSHIP_TYPE);
  const out: Loaded = new Map(ids.map((id) => [id, {}]));
  // Relationship by relationship, side by side (the blocks' key order), each object of the page.
  for (const r of rels) {
    const url = relUrl ? `${x.ctx.listUrl(relUrl)}${r.id}/` : null;
    const byObject = mine.get(r.id)!;
    for (const side of sidesOf(r, type)) {
      const admitted = apply.get(`${r.id}:${side}`);
      const other = OPPOSITE[side];
      const otherType = typeOfSide(r, other);
      const label = sideLabel(x.ctx, r, side);
      for (const id of ids) {
        if (admitted && !admitted.has(id)) continue;
        const block = out.get(id)!;
        const entry = (block[r.key] ??= { id: r.id, url, label: r.label, name: r.label, type: r.type }) as Record<string, unknown>;
        const seen = new Set<string>();
        const objects: unknown[] = [];
        for (const a of byObject.get(id) ?? []) {
          const p = peerOf(a, r, type, side, id);
          const shown = p && !seen.has(p.id) ? visible.get(p.type)?.get(p.id) : undefined;
          if (!shown) continue;
          seen.add(p!.id);
          objects.push(shown);
        }
        entry[other] = { label, object_type: otherType, objects };
      }
    }
  }
  return out;
}
