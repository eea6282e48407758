import type { Row } from '../../../database/db';
import { ident, inList, or, sql } from '../../../database/sql';
import type { WriteContext, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { unscoped } from '../../../core/resource/query/rows';
import { ASSOCIATION_TYPE, isSymmetric, matchingIds, RelationshipInfo, toInfo } from './definitions';

interface Link {
  id: string;
  rel: string;
  st: string;
  sid: string;
  dt: string;
  did: string;
}

const linkOf = (v: Row): Link => ({
  id: String(v.id),
  rel: String(v.relationship_id),
  st: String(v.source_type),
  sid: String(v.source_id),
  dt: String(v.destination_type),
  did: String(v.destination_id),
});

/** Names of objects for messages (the reference's str(obj)), loaded only when a message needs one. */
async function names(w: WriteContext, wanted: Map<string, Set<string>>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [type, ids] of wanted) {
    const def = w.ctx.registry.get(type);
    if (!def || !ids.size) continue;
    // A model rule's message: the objects this write names, already resolved within the writer's view.
    const rows = await w.exec.query(sql`SELECT * ${unscoped(def).from(inList(ident('id'), [...ids]))}`);
    for (const r of rows) out.set(`${type}:${r.id}`, def.display(r, { related: () => null, ancestors: [] }));
  }
  return out;
}

/**
 * The reference's RelationshipAssociation.clean() for a batch of associations: types as the
 * relationship says, no object with itself, no swapped duplicate of a symmetric link, the
 * cardinality (against the stored associations and the batch's earlier ones), and the side
 * filters. One statement for the stored associations, one per filtered side.
 */
export async function validateAssociations(states: WriteState[], w: WriteContext): Promise<(FieldErrors | void)[]> {
  const pending: { i: number; key: string; text: (name: (t: string, id: string) => string) => string }[] = [];
  const wanted = new Map<string, Set<string>>();
  const want = (t: string, id: string) => (wanted.get(t) ?? wanted.set(t, new Set()).get(t)!).add(id);
  const errors: FieldErrors[] = states.map(() => ({}));
  const add = (i: number, key: string, message: string) => (errors[i][key] ??= []).push(message);
  const infos: (RelationshipInfo | null)[] = states.map((s) => {
    const r = s.related('relationship');
    return r ? toInfo(r) : null;
  });
  const links = states.map((s) => linkOf(s.values));
  states.forEach((_s, i) => {
    const r = infos[i];
    const l = links[i];
    if (!r) return;
    if (l.st !== r.sourceType) add(i, 'source_type', `source_type has a different value than defined in ${r.label}`);
    else if (l.dt !== r.destinationType) add(i, 'destination_type', `destination_type has a different value than defined in ${r.label}`);
    else if (l.st === l.dt && l.sid === l.did) add(i, 'destination_id', 'An object cannot form a RelationshipAssociation with itself');
  });
  const ok = states.map((_s, i) => !!infos[i] && !Object.keys(errors[i]).length);
  const live = links.filter((_l, i) => ok[i]);
  if (!live.length) return errors.map((e) => (Object.keys(e).length ? e : undefined));
  const assoc = w.ctx.registry.get(ASSOCIATION_TYPE)!;
  const ids = [...new Set(live.flatMap((l) => [l.sid, l.did]))];
  const rels = [...new Set(live.map((l) => l.rel))];
  const own = new Set(links.map((l) => l.id));
  // A model rule's lookup: the cardinality counts every association, whoever may see it.
  const stored = (
    await w.exec.query(
      sql`SELECT * ${unscoped(assoc).from(inList(ident('relationship_id'), rels), or([inList(ident('source_id'), ids), inList(ident('destination_id'), ids)]))}`,
    )
  )
    .map(linkOf)
    .filter((l) => !own.has(l.id));
  const taken: Link[] = [...stored];
  states.forEach((_s, i) => {
    if (!ok[i]) return;
    const r = infos[i]!;
    const l = links[i];
    const same = taken.filter((t) => t.rel === l.rel);
    let bad = false;
    const fail = (key: string, t: string, id: string, text: (n: string) => string) => {
      want(t, id);
      pending.push({ i, key, text: (name) => text(name(t, id)) });
      bad = true;
    };
    if (isSymmetric(r.type) && same.some((t) => t.did === l.sid && t.sid === l.did)) {
      want(l.st, l.sid);
      want(l.dt, l.did);
      pending.push({ i, key: 'non_field_errors', text: (name) => `A ${r.label} association already exists between ${name(l.st, l.sid)} and ${name(l.dt, l.did)}` });
      bad = true;
    }
    if (!bad && r.type !== 'many-to-many' && r.type !== 'symmetric-many-to-many') {
      if (same.some((t) => t.dt === l.dt && t.did === l.did)) fail('destination', l.dt, l.did, (n) => `Unable to create more than one ${r.label} association to ${n} (destination)`);
      else if ((r.type === 'one-to-one' || r.type === 'symmetric-one-to-one') && same.some((t) => t.st === l.st && t.sid === l.sid)) {
        fail('source', l.st, l.sid, (n) => `Unable to create more than one ${r.label} association from ${n} (source)`);
      } else if (r.type === 'symmetric-one-to-one') {
        if (same.some((t) => t.did === l.sid)) fail('source', l.st, l.sid, (n) => `Unable to create more than one ${r.label} association involving ${n} (peer)`);
        else if (same.some((t) => t.sid === l.did)) fail('destination', l.dt, l.did, (n) => `Unable to create more than one ${r.label} association involving ${n} (peer)`);
      }
    }
    if (!bad) taken.push(l);
    else ok[i] = false;
  });
  // Side filters: one statement per relationship side that has one.
  const bySide = new Map<string, { r: RelationshipInfo; side: 'source' | 'destination'; idx: number[] }>();
  states.forEach((_s, i) => {
    if (!ok[i]) return;
    const r = infos[i]!;
    for (const side of ['destination', 'source'] as const) {
      if (!(side === 'source' ? r.sourceFilter : r.destinationFilter)) continue;
      const k = `${r.id}:${side}`;
      (bySide.get(k) ?? bySide.set(k, { r, side, idx: [] }).get(k)!).idx.push(i);
    }
  });
  for (const { r, side, idx } of bySide.values()) {
    const type = side === 'source' ? r.sourceType : r.destinationType;
    const def = w.ctx.registry.get(type);
    if (!def) continue;
    const of = (i: number) => (side === 'source' ? links[i].sid : links[i].did);
    const admitted = await matchingIds(w.ctx, w.exec, def, (side === 'source' ? r.sourceFilter : r.destinationFilter)!, [...new Set(idx.map(of))]);
    for (const i of idx) {
      if (!ok[i] || admitted.has(of(i))) continue;
      ok[i] = false;
      want(type, of(i));
      pending.push({ i, key: side, text: (name) => `${name(type, of(i))} violates ${r.label} ${side}_filter restriction` });
    }
  }
  if (pending.length) {
    const named = await names(w, wanted);
    const name = (t: string, id: string) => named.get(`${t}:${id}`) ?? id;
    for (const p of pending) add(p.i, p.key, p.text(name));
  }
  return errors.map((e) => (Object.keys(e).length ? e : undefined));
}
