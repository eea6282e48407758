import { ident, sql } from '../../../database/sql';
import { randomUUID } from 'node:crypto';
import type { ModelRun } from './model-run';
import { Obj } from './shared';
import { ResourceRegistry } from '../../resource/registry';
import { objectType } from '../../resource/definition';

/** Model permissions, read-only and expired tokens, constrained scopes, writes that leave the scope. */
export function permissionsContract(m: ModelRun): void {
  const { t, c, detail, count, create } = m;
  describe('permissions', () => {
    let n = 0;
    // Unique across models, shards and runs on one database: four random characters per name
    // collided once in a few thousand names (a CI run creates about that many).
    const [app, model] = m.type.split('.');
    const who = () => `${app}_${model}_${++n}_${randomUUID().slice(0, 8)}`;

    /** View on every other model, so related objects in payloads resolve. */
    const others = () => ({ types: t().app.get(ResourceRegistry).all().map(objectType).filter((x) => x !== m.type), actions: ['view'] });

    /** The models whose view a reader of this one also needs (notes are visible only with their object). */
    const viewAlso = () => (c.viewAlso ? [{ types: c.viewAlso, actions: ['view'] }] : []);

    if (!c.ownedOnly) it('refuses a user without any permission on the model (403)', async () => {
      const tok = await t().userWith(who(), []);
      const msg = { detail: 'You do not have permission to perform this action.' };
      expect((await t().get(m.path, tok).expect(403)).body).toEqual(msg);
      expect((await t().get(detail(m.fixtures[0].id), tok).expect(403)).body).toEqual(msg);
      if (m.creates) await t().post(m.path, c.make(m.ctx, m.seq++), tok).expect(403);
      if (m.updates) await t().patch(detail(m.fixtures[0].id), {}, tok).expect(403);
      if (m.deletes) await t().del(detail(m.fixtures[0].id), undefined, tok).expect(403);
    });

    it('lets a view-only user read but not write', async () => {
      const tok = await t().userWith(who(), [...viewAlso(), { types: [m.type], actions: ['view'] }]);
      await t().get(m.path, tok).expect(200);
      if (c.ownedOnly) return;
      await t().get(detail(m.fixtures[0].id), tok).expect(200);
      const opts = await t().options(m.path, tok).expect(200);
      expect(opts.body).not.toHaveProperty('actions');
      const before = await count();
      if (m.creates) await t().post(m.path, c.make(m.ctx, m.seq++), tok).expect(403);
      if (m.updates) await t().patch(detail(m.fixtures[0].id), {}, tok).expect(403);
      if (m.deletes) {
        await t().del(detail(m.fixtures[0].id), undefined, tok).expect(403);
        await t().del(m.path, [{ id: m.fixtures[0].id }], tok).expect(403);
      }
      expect(await count()).toBe(before);
    });

    it('lets a read-only token read but not write, and refuses an expired token', async () => {
      const tok = await t().userWith(who(), [others(), { types: [m.type], actions: ['view', 'add', 'change', 'delete'] }]);
      const readOnly = (await t().post('/api/users/tokens/', { write_enabled: false }, tok).expect(201)).body.key;
      // Created valid (an already-expired token is a 400), then past its expiry.
      const expiring = (await t().post('/api/users/tokens/', { expires: '2099-01-01T00:00:00Z' }, tok).expect(201)).body;
      await t().db.execute(sql`UPDATE ${ident('users_token')} SET ${ident('expires')} = ${new Date('2000-01-01T00:00:00Z')} WHERE ${ident('id')} = ${expiring.id}`);
      const expired = expiring.key;
      await t().get(m.path, readOnly).expect(200);
      if (m.creates) {
        const res = await t().post(m.path, c.make(m.ctx, m.seq++), readOnly).expect(403);
        expect(res.body).toEqual({ detail: 'You do not have permission to perform this action.' });
      }
      if (m.updates) await t().patch(detail(m.fixtures[0].id), {}, readOnly).expect(403);
      if (m.deletes) await t().del(detail(m.fixtures[0].id), undefined, readOnly).expect(403);
      expect((await t().get(m.path, expired).expect(403)).body).toEqual({ detail: 'Token expired' });
    });

    if (!c.ownedOnly) {
      it('shows a constrained user only the objects in scope: list, detail, filters, CSV', async () => {
        const tok = await t().userWith(who(), [...viewAlso(), { types: [m.type], actions: ['view'], constraints: { id: m.fixtures[0].id } }]);
        const list = await t().get(`${m.path}?limit=1000`, tok).expect(200);
        expect(list.body.count).toBe(1);
        expect(list.body.results.map((o: Obj) => o.id)).toEqual([m.fixtures[0].id]);
        await t().get(detail(m.fixtures[1].id), tok).expect(404);
        expect((await t().get(`${m.path}?id=${m.fixtures[1].id}`, tok).expect(200)).body.count).toBe(0);
        const csv = await t().get(`${m.path}?format=csv`, tok).expect(200);
        const rows = csv.text.trim().split('\n');
        expect(rows).toHaveLength(2);
        expect(csv.text).toContain(m.fixtures[0].id);
        expect(csv.text).not.toContain(m.fixtures[1].id);
        // Filtered and constrained at once: exactly the visible rows that match.
        const both = await t().get(`${m.path}?format=csv&id=${m.fixtures[0].id}&id=${m.fixtures[1].id}&id=${m.fixtures[2].id}`, tok).expect(200);
        expect(both.text.trim().split('\n')).toHaveLength(2);
        expect(both.text).toContain(m.fixtures[0].id);
        const none = await t().get(`${m.path}?format=csv&id=${m.fixtures[1].id}`, tok).expect(200);
        expect(none.text.trim().split('\n')).toHaveLength(1);
      });

      if (m.creates) {
        it('rolls back a create or update that leaves the scope (403), changing nothing', async () => {
          const outside = randomUUID();
          const tok = await t().userWith(who(), [others(), { types: [m.type], actions: ['view', 'add', 'change', 'delete'], constraints: { id: m.fixtures[0].id } }]);
          const before = await count();
          await t().post(m.path, c.make(m.ctx, m.seq++), tok).expect(403);
          await t().post(m.path, [c.make(m.ctx, m.seq++), { ...c.make(m.ctx, m.seq++), id: outside }], tok).expect(403);
          expect(await count()).toBe(before);
          await t().get(detail(outside)).expect(404);
          await t().patch(detail(m.fixtures[1].id), {}, tok).expect(404);
          await t().del(detail(m.fixtures[1].id), undefined, tok).expect(404);
          const bulk = await t().patch(m.path, [{ id: m.fixtures[0].id }, { id: m.fixtures[1].id }], tok).expect(400);
          expect(JSON.stringify(bulk.body)).toContain(m.fixtures[1].id);
          await t().patch(detail(m.fixtures[0].id), {}, tok).expect(200);
          await t().get(detail(m.fixtures[1].id)).expect(200);
        });
      }
    }
  });
}
