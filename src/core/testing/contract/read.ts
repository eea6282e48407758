import { randomUUID } from 'node:crypto';
import { model } from '../../resource/definition';
import type { ModelRun } from './model-run';
import { isRef, STANDARD, Obj } from './shared';

/** Reads: list, detail, depth, paging, sorting, filters by id, OPTIONS; and the refusals of a read-only model. */
export function readContract(m: ModelRun): void {
  const { t, c, detail, count, strip, listAllow, detailAllow } = m;
  describe('read', () => {
    it('lists with pagination keys and the standard headers', async () => {
      const res = await t().get(m.path).expect(200);
      expect(Object.keys(res.body)).toEqual(['count', 'next', 'previous', 'results']);
      expect(res.body.count).toBeGreaterThanOrEqual(3);
      expect(res.headers['api-version']).toBe('2.4');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.vary).toMatch(/Accept/);
      expect(res.headers.allow).toBe(listAllow);
    });

    it('returns each object with the standard fields', async () => {
      for (const f of m.fixtures) {
        const res = await t().get(detail(f.id)).expect(200);
        const b = res.body;
        expect(Object.keys(b).slice(0, 5)).toEqual(STANDARD);
        expect(b.id).toBe(f.id);
        expect(b.object_type).toBe(m.type);
        expect(typeof b.display).toBe('string');
        expect(b.url).toMatch(new RegExp(`${detail(f.id)}$`));
        expect(typeof b.natural_slug).toBe('string');
        expect(typeof b.created).toBe('string');
        expect(typeof b.last_updated).toBe('string');
        if (c.notes !== false) expect(b.notes_url).toBe(`${b.url}notes/`);
        if (c.customFields !== false) expect(b.custom_fields).toEqual(expect.any(Object));
        expect(b).not.toHaveProperty('computed_fields');
        expect(b).not.toHaveProperty('relationships');
        const opted = (await t().get(`${detail(f.id)}?include=computed_fields&include=relationships`).expect(200)).body;
        expect(opted.computed_fields).toEqual(expect.any(Object));
        expect(opted.relationships).toEqual(expect.any(Object));
        expect(JSON.stringify(b)).not.toMatch(/scrypt|pbkdf2|argon2|bcrypt/);
        expect(res.headers.allow).toBe(detailAllow);
      }
    });

    // A list page reads what it shows with its page statement (display rows, counts, id lists,
    // ancestry joined in), a detail with its lookup's: the two must agree, at depth 0 and 1. (A
    // write's response, whose values are loaded by id, is compared with a detail by the writes.)
    it('shows each object on a list page exactly as its detail does', async () => {
      for (const depth of [0, 1]) {
        const ids = m.fixtures.map((f) => `id=${f.id}`).join('&');
        const page = (await t().get(`${m.path}?${ids}&depth=${depth}`).expect(200)).body.results as Obj[];
        expect(page.map((o) => o.id).sort()).toEqual(m.fixtures.map((f) => f.id).sort());
        for (const o of page) expect(o).toEqual((await t().get(`${detail(o.id)}?depth=${depth}`).expect(200)).body);
      }
    });

    it('answers 404 with the reference message for an unknown or malformed id', async () => {
      const res = await t().get(detail(randomUUID())).expect(404);
      expect(res.body).toEqual({ detail: expect.stringMatching(/^No \w+ matches the given query\.$/) });
      await t().get(detail('not-a-uuid;really')).expect(404);
      const post = await t().post(detail(m.fixtures[0].id), {}).expect(405);
      expect(post.body).toEqual({ detail: 'Method "POST" not allowed.' });
      expect(post.headers.allow).toBe(detailAllow);
      // Not valid percent-encoding once Express has decoded the path: still a plain 404.
      await t().get(detail('%25ZZ')).expect(404);
    });

    it('refuses anonymous reads and writes with 403', async () => {
      const r1 = await t().get(m.path, null).expect(403);
      expect(r1.body).toEqual({ detail: 'Authentication credentials were not provided.' });
      expect(r1.headers['api-version']).toBe('2.4');
      await t().post(m.path, c.make(m.ctx, 1), null).expect(403);
      const r2 = await t().get(m.path, 'ffffffffffffffffffffffffffffffffffffffff').expect(403);
      expect(r2.body).toEqual({ detail: 'Invalid token' });
    });

    it('redirects a path without the trailing slash, keeping the query', async () => {
      const res = await t().get(`${m.path.slice(0, -1)}?limit=2&offset=1`).expect(302);
      expect(res.headers.location).toBe(`${m.path}?limit=2&offset=1`);
    });

    it('renders related objects as {id, object_type, url} at depth 0', async () => {
      const res = await t().get(`${m.path}?depth=0&limit=10`).expect(200);
      for (const obj of res.body.results as Obj[]) {
        for (const [k, v] of Object.entries(obj)) {
          if (k === 'custom_fields' || k === 'computed_fields') continue;
          // A JSON field's value is data (a change record's object_data_v2), not a reference.
          const f = model(m.type)().fields[k];
          if (f?.kind === 'scalar' && f.type === 'json') continue;
          if (v && typeof v === 'object' && !Array.isArray(v) && 'id' in v) {
            expect(isRef(v)).toBe(true);
            expect((v as Obj).url).toMatch(new RegExp(`/${(v as Obj).id}/$`));
          }
          if (Array.isArray(v)) for (const item of v) if (item && typeof item === 'object') expect(isRef(item)).toBe(true);
        }
      }
    });

    it('nests related objects at depth 1, without their many-to-many fields', async () => {
      const d0 = (await t().get(`${m.path}?depth=0&limit=10`).expect(200)).body.results as Obj[];
      const d1 = (await t().get(`${m.path}?depth=1&limit=10`).expect(200)).body.results as Obj[];
      d0.forEach((obj, i) => {
        for (const [k, v] of Object.entries(obj)) {
          if (isRef(v)) {
            const nested = d1[i][k] as Obj;
            expect(Object.keys(nested).length).toBeGreaterThan(3);
            expect(nested.id).toBe((v as Obj).id);
            expect(nested).not.toHaveProperty('tags');
            expect(nested).not.toHaveProperty('content_types');
          }
        }
      });
    });

    it('rejects a depth outside 0..10, a non-integer depth and a depth on writes with 400', async () => {
      for (const d of ['11', '-1', 'x', '1.5']) {
        const res = await t().get(`${m.path}?depth=${d}`).expect(400);
        expect(res.body).toEqual({ depth: [expect.any(String)] });
      }
      await t().get(`${m.path}?depth=10`).expect(200);
      await t().post(`${m.path}?depth=1`, c.make(m.ctx, m.seq++)).expect(m.creates ? 400 : 405);
      if (m.deletes) {
        // A refused delete deletes nothing.
        await t().del(`${detail(m.fixtures[0].id)}?depth=1`).expect(400);
        await t().del(`${m.path}?depth=1`, [{ id: m.fixtures[0].id }]).expect(400);
        await t().get(detail(m.fixtures[0].id)).expect(200);
      }
    });

    it('paginates with limit and offset and keeps other parameters in the links', async () => {
      const total = await count();
      const p1 = (await t().get(`${m.path}?limit=1&depth=0`).expect(200)).body;
      expect(p1.results).toHaveLength(1);
      expect(p1.previous).toBeNull();
      expect(p1.next).toMatch(/\?depth=0&limit=1&offset=1$/);
      const p2 = (await t().get(`${m.path}?limit=1&offset=1`).expect(200)).body;
      expect(p2.previous).toMatch(/\?limit=1$/);
      expect(p2.results[0].id).not.toBe(p1.results[0].id);
      const last = (await t().get(`${m.path}?limit=1&offset=${total - 1}`).expect(200)).body;
      expect(last.next).toBeNull();
      const beyond = (await t().get(`${m.path}?offset=${total + 10}`).expect(200)).body;
      expect(beyond).toMatchObject({ count: total, results: [] });
      const bad = (await t().get(`${m.path}?limit=-3&offset=x`).expect(200)).body;
      expect(bad.results.length).toBe(Math.min(total, 50));
    });

    if (c.sortField !== null) {
      it('sorts ascending and descending', async () => {
        const f = c.sortField ?? 'name';
        const asc = (await t().get(`${m.path}?sort=${f}&limit=1000`).expect(200)).body.results.map((o: Obj) => String(o[f]));
        const desc = (await t().get(`${m.path}?sort=-${f}&limit=1000`).expect(200)).body.results.map((o: Obj) => String(o[f]));
        expect(asc).toEqual([...asc].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        expect(desc).toEqual([...asc].reverse());
        await t().get(`${m.path}?sort=no_such_field`).expect(200);
      });
    }

    it('filters by id and refuses unknown filters', async () => {
      const res = await t().get(`${m.path}?id=${m.fixtures[0].id}&id=${m.fixtures[1].id}`).expect(200);
      expect(res.body.count).toBe(2);
      expect(res.body.results.map((o: Obj) => o.id).sort()).toEqual([m.fixtures[0].id, m.fixtures[1].id].sort());
      const excluded = await t().get(`${m.path}?id__n=${m.fixtures[0].id}&limit=1000`).expect(200);
      expect(excluded.body.results.map((o: Obj) => o.id)).not.toContain(m.fixtures[0].id);
      const bad = await t().get(`${m.path}?ice_cream_flavor=rocky-road`).expect(400);
      expect(bad.body).toEqual({ ice_cream_flavor: ['Unknown filter field'] });
      await t().get(`${m.path}?brief=1`).expect(400);
      await t().get(`${m.path}?id=not-a-uuid`).expect(400);
    });

    it('describes itself with OPTIONS', async () => {
      const res = await t().options(m.path).expect(200);
      expect(res.body).toMatchObject({ name: expect.any(String), renders: expect.any(Array), parses: expect.any(Array) });
      if (!m.creates) expect(res.body).not.toHaveProperty('actions');
      else expect(res.body.actions.POST).toBeDefined();
      const one = await t().options(detail(m.fixtures[0].id)).expect(200);
      if (!m.updates) expect(one.body).not.toHaveProperty('actions');
      else expect(one.body.actions.PUT).toBeDefined();
      for (const [field, values] of Object.entries(c.choices ?? {})) {
        expect(res.body.actions.POST[field].choices.map((x: Obj) => x.value)).toEqual(values);
        for (const ch of res.body.actions.POST[field].choices) expect(Object.keys(ch).sort()).toEqual(['display', 'value']);
      }
      await t().options(detail(m.fixtures[0].id)).expect(200);
      await t().options(m.path, null).expect(403);
    });
  });

  if (!m.creates || !m.updates || !m.deletes) {
    it('refuses every write it does not offer with 405 and changes nothing', async () => {
      const before = await count();
      const id = m.fixtures[0].id;
      const attempts = [
        ...(m.creates ? [] : [() => t().post(m.path, c.make(m.ctx, m.seq++))]),
        ...(m.updates ? [] : [() => t().put(m.path, [{ id }]), () => t().patch(m.path, [{ id }]), () => t().put(detail(id), m.fixtures[0]), () => t().patch(detail(id), {})]),
        ...(m.deletes ? [] : [() => t().del(m.path, [{ id }]), () => t().del(detail(id))]),
      ];
      for (const attempt of attempts) {
        const res = await attempt().expect(405);
        expect(res.body).toEqual({ detail: expect.stringMatching(/^Method "\w+" not allowed\.$/) });
      }
      expect(await count()).toBe(before);
      expect(strip((await t().get(detail(id)).expect(200)).body)).toEqual(strip(m.fixtures[0]));
    });
  }
}

/** Trees: parent.parent nested at depth 2, tree_depth, ancestry in display, no cycles. */
export function treeContract(m: ModelRun): void {
  const { t, c, detail, create } = m;
  if (c.tree && c.chain) {
    it('nests parent.parent at depth 2 and reports tree_depth', async () => {
      const [a, b, cc] = c.chain!(m.ctx);
      const root = await create(a);
      const child = await create({ ...b, parent: root.id });
      const grandchild = await create({ ...cc, parent: child.id });
      const res = await t().get(`${detail(grandchild.id)}?depth=2`).expect(200);
      expect(res.body.tree_depth).toBe(2);
      expect(res.body.parent.id).toBe(child.id);
      expect(res.body.parent.parent.id).toBe(root.id);
      expect(res.body.parent.tree_depth).toBeNull();
      expect(res.body.display).toBe(`${root.display} → ${child.display.split(' → ').pop()} → ${grandchild.display.split(' → ').pop()}`);
      const cycle = await t().patch(detail(root.id), { parent: grandchild.id }).expect(400);
      expect(cycle.body).toHaveProperty('parent');
    });
  }
}
