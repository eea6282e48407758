/** The `relationships` key of a write: checked before the model's rules, associations written once the objects are saved. */
import { ident, inList, sql } from '../../../database/sql';
import { objectType, ResourceDefinition } from '../../../core/resource/definition';
import { PermissionDeniedError, ValidationError, type FieldErrors } from '../../../core/resource/errors';
import type { ExtensionContext, WriteItem } from '../../../core/resource/extension';
import { unscoped } from '../../../core/resource/query/rows';
import { visibleRows } from '../../../core/resource/query/scope';
import { ValueError } from '../../../core/resource/query/values';
import { ResourceWriter } from '../../../core/resource/resource-writer';
import { parseRef, ReferenceResolver, RefSpec } from '../../../core/resource/serialize/references';
import { modelLabel } from '../resources/relationship.resource';
import { ASSOCIATION_TYPE, hasMany, isSymmetric, matchingIds, OPPOSITE, RelationshipInfo, relationshipsOf, Side, sidesOf, typeOfSide } from './definitions';
import { associationsOf, peerOf } from './read';

export const KEY = 'relationships';

/** What one object's `relationships` asked for: relationship -> the other side -> peer ids. */
type Plan = Map<RelationshipInfo, Map<Side, string[]>>;
const plans = new WeakMap<object, Plan>();

const typeName = (v: unknown) => (Array.isArray(v) ? 'list' : typeof v === 'string' ? 'str' : typeof v === 'number' ? 'int' : typeof v === 'boolean' ? 'bool' : 'NoneType');

/** The reference's required_related_objects_errors (API form), for one object. */
async function requiredErrors(
  x: ExtensionContext & { create: boolean },
  rels: RelationshipInfo[],
  item: WriteItem,
  given: Record<string, unknown> | undefined,
  existing: Set<string>,
  anyOf: (type: string) => Promise<boolean>,
  inFilter: (r: RelationshipInfo) => boolean,
): Promise<string[]> {
  const type = objectType(x.def);
  const out: string[] = [];
  for (const r of rels) {
    if (!r.requiredOn || isSymmetric(r.type)) continue;
    if ((r.requiredOn === 'source' ? r.sourceType : r.destinationType) !== type) continue;
    const opposite = OPPOSITE[r.requiredOn];
    const otherDef = x.ctx.registry.get(typeOfSide(r, opposite));
    if (!otherDef) continue;
    if (!x.create && !inFilter(r)) continue;
    const few = hasMany(r.type, opposite) ? 'at least one' : 'a';
    const supplied = (given?.[r.key] as Record<string, { objects?: unknown[] }> | undefined)?.[opposite];
    if (!x.create && !supplied && given === undefined && existing.has(`${r.id}:${item.values.id}`)) continue;
    if (!(await anyOf(typeOfSide(r, opposite)))) {
      const plural = x.def.verboseNamePlural.replace(/\b\w/g, (c) => c.toUpperCase());
      out.push(`${plural} require ${few} ${otherDef.verboseName}, but no ${otherDef.verboseNamePlural} exist yet. Create a ${otherDef.verboseName} by posting to /api/${otherDef.apiBase ?? otherDef.app}/${otherDef.slug}/`);
    }
    if (!supplied || !Array.isArray(supplied.objects) || !supplied.objects.length) out.push(`You need to specify ["relationships"]["${r.key}"]["${opposite}"]["objects"].`);
  }
  return out;
}

/**
 * Checks what each object sent under `relationships` (shape, keys, sides, cardinality of the
 * request itself, the objects named: resolved among those the requester may view, one statement
 * per model) and the relationships required on the model; keeps the plan for `afterSave`.
 */
export async function prepare(x: ExtensionContext & { create: boolean }, items: WriteItem[]): Promise<void> {
  const rels = await relationshipsOf(x.ctx, x.exec, x.def);
  const type = objectType(x.def);
  const label = modelLabel(x.def);
  const required = rels.filter((r) => r.requiredOn && !isSymmetric(r.type));
  if (!rels.length) {
    for (const item of items) {
      if (item.given === undefined || item.given === null) continue;
      if (typeof item.given !== 'object' || Array.isArray(item.given)) item.addError(KEY, `Invalid data. Expected a dictionary, but got ${typeName(item.given)}.`);
      else for (const k of Object.keys(item.given)) item.addError(KEY, `"${k}" is not a relationship on ${label}`);
    }
    return;
  }
  const resolver = new ReferenceResolver(x.ctx, x.exec);
  const wanted: { item: WriteItem; r: RelationshipInfo; side: Side; target: ResourceDefinition; specs: RefSpec[] }[] = [];
  for (const item of items) {
    const given = item.given;
    if (given === undefined || given === null) continue;
    if (typeof given !== 'object' || Array.isArray(given)) {
      item.addError(KEY, `Invalid data. Expected a dictionary, but got ${typeName(given)}.`);
      continue;
    }
    const data = given as Record<string, unknown>;
    let bad = false;
    for (const k of Object.keys(data)) {
      if (!rels.some((r) => r.key === k)) {
        item.addError(KEY, `"${k}" is not a relationship on ${label}`);
        bad = true;
      }
    }
    if (bad) continue;
    for (const r of rels) {
      if (!Object.hasOwn(data, r.key)) continue;
      const sides = data[r.key];
      if (sides === null || typeof sides !== 'object' || Array.isArray(sides)) {
        item.addError(KEY, `Invalid data under ["${r.key}"]. Expected a dictionary, but got ${typeName(sides)}.`);
        continue;
      }
      const valid = sidesOf(r, type).map((s) => OPPOSITE[s]);
      for (const other of ['source', 'destination', 'peer'] as Side[]) {
        if (!Object.hasOwn(sides, other)) continue;
        if (!valid.includes(other)) {
          item.addError(KEY, `"${other}" is not a valid side for "${r.label}" on ${label}`);
          continue;
        }
        const entry = (sides as Record<string, unknown>)[other];
        if (entry === null || typeof entry !== 'object' || !Object.hasOwn(entry, 'objects')) {
          item.addError(KEY, `"objects" must be specified under ["${r.key}"]["${other}"] when present`);
          continue;
        }
        const objects = (entry as Record<string, unknown>).objects;
        if (!Array.isArray(objects)) {
          item.addError(KEY, '"objects" must be a list, not a single value');
          continue;
        }
        if (objects.length > 1 && !hasMany(r.type, other)) {
          item.addError(KEY, `For "${r.label}", "${other}" objects must include at most a single object`);
          continue;
        }
        const target = x.ctx.registry.get(typeOfSide(r, other));
        if (!target) {
          item.addError(KEY, `Model ${typeOfSide(r, other)} is not currently installed, cannot look it up`);
          continue;
        }
        const specs: RefSpec[] = [];
        try {
          for (const o of objects) specs.push(parseRef(target, o));
        } catch (e) {
          if (e instanceof ValueError) {
            item.addError(KEY, e.message);
            continue;
          }
          throw e;
        }
        wanted.push({ item, r, side: other, target, specs });
      }
    }
  }
  // The objects named, model by model: only those the requester may view are found.
  const byTarget = new Map<ResourceDefinition, typeof wanted>();
  for (const w of wanted) (byTarget.get(w.target) ?? byTarget.set(w.target, []).get(w.target)!).push(w);
  for (const [target, list] of byTarget) {
    const found = await resolver.resolve(target, list.flatMap((w) => w.specs));
    let n = 0;
    for (const w of list) {
      const ids: string[] = [];
      for (const _s of w.specs) {
        const row = found[n++];
        if (typeof row === 'string') w.item.addError(KEY, row);
        else if (!ids.includes(String(row.id))) ids.push(String(row.id));
      }
      const plan = plans.get(w.item.values) ?? new Map();
      plans.set(w.item.values, plan);
      const sides = plan.get(w.r) ?? new Map<Side, string[]>();
      plan.set(w.r, sides);
      sides.set(w.side, ids);
    }
  }
  // Sides given with an empty list are plans too (they clear).
  for (const w of wanted) {
    if (w.specs.length) continue;
    const plan = plans.get(w.item.values) ?? new Map();
    plans.set(w.item.values, plan);
    (plan.get(w.r) ?? plan.set(w.r, new Map()).get(w.r)!).set(w.side, []);
  }
  if (!required.length) return;
  // Required relationships: which objects already have one (updates), whether any peer exists at all.
  const updating = items.filter((i) => i.existing).map((i) => String(i.values.id));
  const existing = new Set<string>();
  for (const a of await associationsOf(x.exec, x.ctx, type, required.map((r) => r.id), updating)) {
    const r = required.find((q) => q.id === a.rel)!;
    existing.add(`${r.id}:${r.requiredOn === 'source' ? a.sid : a.did}`);
  }
  const anyCache = new Map<string, Promise<boolean>>();
  const anyOf = (t: string) => {
    if (!anyCache.has(t)) {
      const def = x.ctx.registry.get(t)!;
      // Whether any object of the model exists at all (the reference's objects.exists()).
      anyCache.set(t, x.exec.query(sql`SELECT ${ident('id')} ${unscoped(def).from()} LIMIT 1`).then((rows) => rows.length > 0));
    }
    return anyCache.get(t)!;
  };
  const admitted = new Map<string, Set<string>>();
  for (const r of required) {
    const filter = r.requiredOn === 'source' ? r.sourceFilter : r.destinationFilter;
    if (filter && updating.length) admitted.set(r.id, await matchingIds(x.ctx, x.exec, x.def, filter, updating));
  }
  for (const item of items) {
    const given = item.given && typeof item.given === 'object' && !Array.isArray(item.given) ? (item.given as Record<string, unknown>) : undefined;
    const inFilter = (r: RelationshipInfo) => !admitted.has(r.id) || admitted.get(r.id)!.has(String(item.values.id));
    for (const m of await requiredErrors(x, required, item, given, existing, anyOf, inFilter)) item.addError(KEY, m);
  }
}

/**
 * After the objects are saved: each relationship side given is made what was asked, removing the
 * associations that are no longer wanted and adding the new ones through the association model's
 * own writer (its rules: cardinality, filters, symmetric duplicates), in the same transaction.
 * Adding and removing need the association permissions, as in the reference.
 */
export async function afterSave(x: ExtensionContext & { create: boolean }, items: WriteItem[]): Promise<void> {
  const work = items.map((item) => ({ item, plan: plans.get(item.values) })).filter((w): w is { item: WriteItem; plan: Plan } => !!w.plan && w.plan.size > 0);
  if (!work.length) return;
  const assocDef = x.ctx.registry.get(ASSOCIATION_TYPE)!;
  const type = objectType(x.def);
  const rels = [...new Set(work.flatMap((w) => [...w.plan.keys()]))];
  const stored = await associationsOf(
    x.exec,
    x.ctx,
    type,
    rels.map((r) => r.id),
    work.map((w) => String(w.item.values.id)),
  );
  const remove: string[] = [];
  const add: { input: Record<string, unknown>; owner: number }[] = [];
  work.forEach(({ item, plan }, owner) => {
    const id = String(item.values.id);
    for (const [r, sides] of plan) {
      for (const [other, wantedIds] of sides) {
        const side = OPPOSITE[other];
        const have = new Map<string, string>();
        for (const a of stored) {
          if (a.rel !== r.id) continue;
          const p = peerOf(a, r, type, side, id);
          if (p) have.set(p.id, a.id);
        }
        for (const [peer, assoc] of have) if (!wantedIds.includes(peer)) remove.push(assoc);
        for (const peer of wantedIds) {
          if (have.has(peer)) continue;
          const [source, destination] = other === 'source' ? [peer, id] : [id, peer];
          add.push({
            owner,
            input: { relationship: r.id, source_type: r.sourceType, source_id: source, destination_type: r.destinationType, destination_id: destination },
          });
        }
      }
    }
  });
  if (add.length) {
    const allowed = await x.ctx.permissions.constraints(x.ctx.principal, ASSOCIATION_TYPE, 'add');
    if (allowed !== null && !allowed.length) throw new PermissionDeniedError('This user does not have permission to create RelationshipAssociations.');
  }
  if (remove.length) {
    const allowed = await x.ctx.permissions.constraints(x.ctx.principal, ASSOCIATION_TYPE, 'delete');
    if (allowed !== null && !allowed.length) throw new PermissionDeniedError('This user does not have permission to delete RelationshipAssociations.');
    const scope = await visibleRows(x.ctx, x.exec, assocDef, 'd', 'delete');
    if (scope.restricted) {
      const [{ n }] = await x.exec.query<{ n: number }>(sql`SELECT COUNT(*) AS n ${scope.from(inList(ident('d', 'id'), remove))}`);
      if (Number(n) !== remove.length) throw new PermissionDeniedError('This user does not have permission to delete RelationshipAssociations.');
    }
    // The associations just checked against the requester's delete scope.
    await x.exec.execute(sql`DELETE ${unscoped(assocDef).from(inList(ident('id'), remove))}`);
  }
  if (!add.length) return;
  try {
    await new ResourceWriter(x.ctx, x.exec).create(
      assocDef,
      add.map((a) => a.input),
      true,
    );
  } catch (e) {
    if (!(e instanceof ValidationError) || !Array.isArray(e.errors)) throw e;
    // The association's messages, under the object's `relationships`.
    const perItem: FieldErrors[] = items.map(() => ({}));
    (e.errors as FieldErrors[]).forEach((errs, n) => {
      const owner = items.indexOf(work[add[n].owner].item);
      for (const messages of Object.values(errs ?? {})) for (const m of messages) (perItem[owner][KEY] ??= []).push(m);
    });
    if (items.length === 1) throw new ValidationError(perItem[0]);
    throw new ValidationError(perItem);
  }
}
