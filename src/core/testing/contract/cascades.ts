import { listPath, objectType, ResourceDefinition } from '../../resource/definition';
import type { ForeignKeyField, GenericForeignKeyField } from '../../resource/fields';
import { ResourceRegistry } from '../../resource/registry';
import type { TestApp } from '../harness';
import type { Fixtures } from './fixture';
import type { Obj } from './shared';


/**
 * Every cascade the registry knows (a foreign key that deletes its objects with its target) holds
 * the requester's scope (security issue 24): a user who may delete an object but not one of the
 * dependents its deletion would take along is refused with a 403 that counts them, and nothing is
 * deleted; the same user allowed to delete the dependents too is not refused for that reason.
 * Discovered from the registry over the objects the fixtures left, so a model added later is covered;
 * `owners` (default: every model) are the models whose cascades are checked.
 */
export function cascadeContract(t: () => TestApp, resources: ResourceDefinition[], fixtures: Fixtures, owners: ResourceDefinition[] = resources): void {
  const cascades: { owner: ResourceDefinition; field: ForeignKeyField; target: ResourceDefinition }[] = [];
  for (const owner of resources) {
    for (const f of Object.values(owner.fields)) {
      if (f.kind === 'fk' && f.onDelete === 'cascade') cascades.push({ owner, field: f, target: f.target() });
    }
  }
  const everything = () => t().app.get(ResourceRegistry).all().map(objectType);
  // Generic keys that cascade: the owner goes with any target they allow (a cable with its interface).
  const genericCascades = resources.flatMap((owner) =>
    Object.values(owner.fields)
      .filter((f): f is GenericForeignKeyField => f.kind === 'gfk' && !!f.cascade)
      .map((f) => ({ owner, allows: (d: ResourceDefinition) => !f.allowed || f.allowed(d) })),
  );
  // Every model a deletion of `start` reaches through cascades (a device type's rear port templates and their front port templates; a device's interfaces and their cables).
  const reached = (start: ResourceDefinition) => {
    const out = new Set([start]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const c of cascades) if (out.has(c.target) && !out.has(c.owner)) grew = !!out.add(c.owner);
      for (const g of genericCascades) if (!out.has(g.owner) && [...out].some(g.allows)) grew = !!out.add(g.owner);
    }
    return [...out].map(objectType);
  };

  for (const [index, { owner, field, target }] of cascades.entries()) {
    const name = `${objectType(target)} deleted with its ${objectType(owner)}.${field.name} dependents`;
    // Read-only models are written by their own services (identity intake), never deleted through the API.
    if (target.readOnly || !owners.includes(owner)) continue;
    it(name, async () => {
      const refusal = { detail: expect.stringMatching(/^Unable to delete object: it would also delete \d+ dependent objects? that you may not delete\.$/) };
      const view = { types: everything(), actions: ['view'] };
      const make = fixtures[objectType(owner)]?.dependentOn;
      let candidates: { dep: Obj; targetId: string }[];
      if (make) {
        // Dependents nobody else may list (tokens): a fresh target object, and one made for it.
        const tf = fixtures[objectType(target)];
        const made = await t().post(listPath(target), tf.make((await tf.setup?.(t())) ?? {}, 3000 + index)).expect(201);
        candidates = [{ dep: { id: await make(t(), field.name, made.body.id) }, targetId: made.body.id }];
      } else {
        // A nullable key: only the objects that have one (those without may fill the first 1,000 of a large shard).
        const has = field.kind === 'fk' && field.nullable ? `&${field.name}__isnull=false` : '';
        const deps = ((await t().get(`${listPath(owner)}?limit=1000${has}`).expect(200)).body.results as Obj[]).filter((o) => o[field.name]?.id && o[field.name].id !== o.id);
        candidates = deps.map((dep) => ({ dep, targetId: dep[field.name].id as string }));
      }
      expect({ name, dependents: candidates.length > 0 }).toEqual({ name, dependents: true });
      // A target that something else protects answers 409 first (nothing deleted either): the next one is tried.
      let chosen: { dep: Obj; targetId: string } | undefined;
      for (const [i, c] of candidates.slice(0, 10).entries()) {
        const restricted = owner === target ? [{ types: [objectType(target)], actions: ['delete'], constraints: { id__n: [c.dep.id] } }] : [
          { types: [objectType(target)], actions: ['delete'] },
          { types: [objectType(owner)], actions: ['delete'], constraints: { id__n: [c.dep.id] } },
        ];
        const refused = await t().userWith(`cascade-${owner.model}-${field.name}-${i}`, [view, ...restricted]);
        const res = await t().del(`${listPath(target)}${c.targetId}/`, undefined, refused);
        if (res.status === 409) continue;
        expect({ name, status: res.status, body: res.body }).toEqual({ name, status: 403, body: refusal });
        const bulk = await t().del(listPath(target), [{ id: c.targetId }], refused);
        expect({ name, bulk: bulk.status, body: bulk.body }).toEqual({ name, bulk: 403, body: refusal });
        chosen = c;
        break;
      }
      expect({ name, refusedForItsDependents: !!chosen }).toEqual({ name, refusedForItsDependents: true });
      const { dep, targetId } = chosen!;
      const tgtPath = `${listPath(target)}${targetId}/`;
      await t().get(tgtPath).expect(200);
      if (!make) await t().get(`${listPath(owner)}${dep.id}/`).expect(200);
      // Allowed to delete the dependents (and theirs) as well: no longer refused for their sake.
      const allowed = await t().userWith(`cascade-${owner.model}-${field.name}-b`, [view, { types: reached(target), actions: ['delete'] }]);
      const ok = await t().del(tgtPath, undefined, allowed);
      expect({ name, status: ok.status === 403 ? ok.body : 'not refused' }).toEqual({ name, status: 'not refused' });
    });
  }
}
