import { objectType, ResourceDefinition } from '../../resource/definition';
import type { ForeignKeyField } from '../../resource/fields';
import { ResourceRegistry } from '../../resource/registry';
import type { TestApp } from '../harness';
import type { Fixtures } from './fixture';
import type { Obj } from './shared';

const listPath = (d: ResourceDefinition) => `/api/${d.app}/${d.slug}/`;

/**
 * Every cascade the registry knows (a foreign key that deletes its objects with its target) holds
 * the requester's scope (security issue 24): a user who may delete an object but not one of the
 * dependents its deletion would take along is refused with a 403 that counts them, and nothing is
 * deleted; the same user allowed to delete the dependents too is not refused for that reason.
 * Discovered from the registry over the objects the fixtures left, so a model added later is covered.
 */
export function cascadeContract(t: () => TestApp, resources: ResourceDefinition[], fixtures: Fixtures): void {
  const cascades: { owner: ResourceDefinition; field: ForeignKeyField; target: ResourceDefinition }[] = [];
  for (const owner of resources) {
    for (const f of Object.values(owner.fields)) {
      if (f.kind === 'fk' && f.onDelete === 'cascade') cascades.push({ owner, field: f, target: f.target() });
    }
  }
  const everything = () => t().app.get(ResourceRegistry).all().map(objectType);

  for (const { owner, field, target } of cascades) {
    const name = `${objectType(target)} deleted with its ${objectType(owner)}.${field.name} dependents`;
    // Read-only models are written by their own services (identity intake), never deleted through the API.
    if (target.readOnly) continue;
    it(name, async () => {
      let dep: Obj;
      let targetId: string;
      const make = fixtures[objectType(owner)]?.dependentOn;
      if (make) {
        // Dependents nobody else may list (tokens): a fresh target object, and one made for it.
        const tf = fixtures[objectType(target)];
        const made = await t().post(listPath(target), tf.make(await tf.setup?.(t()) ?? {}, 900 + cascades.length)).expect(201);
        targetId = made.body.id;
        dep = { id: await make(t(), field.name, targetId) };
      } else {
        const deps = ((await t().get(`${listPath(owner)}?limit=1000`).expect(200)).body.results as Obj[]).filter((o) => o[field.name]?.id && o[field.name].id !== o.id);
        expect({ name, dependents: deps.length > 0 }).toEqual({ name, dependents: true });
        dep = deps[0];
        targetId = dep[field.name].id as string;
      }
      const view = { types: everything(), actions: ['view'] };
      const refused = await t().userWith(`cascade-${owner.model}-${field.name}-a`, [
        view,
        { types: [objectType(target)], actions: ['delete'] },
        ...(owner === target ? [] : [{ types: [objectType(owner)], actions: ['delete'], constraints: { id__n: [dep.id] } }]),
      ]);
      const tgtPath = `${listPath(target)}${targetId}/`;
      if (owner === target) {
        // A tree: the child may not be deleted, its parent may.
        const self = await t().userWith(`cascade-${owner.model}-${field.name}-s`, [view, { types: [objectType(target)], actions: ['delete'], constraints: { id__n: [dep.id] } }]);
        const res = await t().del(tgtPath, undefined, self);
        expect({ name, status: res.status, body: res.body }).toEqual({ name, status: 403, body: { detail: expect.stringMatching(/^Unable to delete object: it would also delete \d+ dependent objects? that you may not delete\.$/) } });
      } else {
        const res = await t().del(tgtPath, undefined, refused);
        expect({ name, status: res.status, body: res.body }).toEqual({ name, status: 403, body: { detail: expect.stringMatching(/^Unable to delete object: it would also delete \d+ dependent objects? that you may not delete\.$/) } });
        const bulk = await t().del(listPath(target), [{ id: targetId }], refused);
        expect({ name, bulk: bulk.status }).toEqual({ name, bulk: 403 });
      }
      await t().get(tgtPath).expect(200);
      if (!make) await t().get(`${listPath(owner)}${dep.id}/`).expect(200);
      // Allowed to delete the dependents as well: no longer refused for their sake.
      const allowed = await t().userWith(`cascade-${owner.model}-${field.name}-b`, [view, { types: [objectType(target), objectType(owner)], actions: ['delete'] }]);
      const ok = await t().del(tgtPath, undefined, allowed);
      expect({ name, status: ok.status === 403 ? ok.body : 'not refused' }).toEqual({ name, status: 'not refused' });
    });
  }
}
