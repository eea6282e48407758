import { randomUUID } from 'node:crypto';
import type { ModelRun } from './model-run';
import { expectMatches } from './shared';

/** Writes: create, bulk create, update, bulk update, delete, bulk delete, all-or-none. */
export function writeContract(m: ModelRun): void {
  if (!m.creates && !m.updates && !m.deletes) return;
  describe('write', () => {
    if (m.creates) createContract(m);
    if (m.updates) updateContract(m);
    if (m.deletes) deleteContract(m);
  });
}

/** Creates: one, with a client's id, a list, all or none, bad bodies. */
function createContract(m: ModelRun): void {
  const { t, c, detail, count, strip } = m;
  describe('create', () => {
    it('creates one object (201) and reads back what was written', async () => {
      const payload = c.make(m.ctx, m.seq++);
      const before = await count();
      const res = await t().post(m.path, payload).expect(201);
      expectMatches(res.body, payload, c.writeOnly);
      expect(await count()).toBe(before + 1);
      const again = await t().get(detail(res.body.id)).expect(200);
      expect(strip(again.body)).toEqual(strip(res.body));
    });

    it('honours a client-supplied id on create', async () => {
      const id = randomUUID();
      const res = await t().post(m.path, { ...c.make(m.ctx, m.seq++), id }).expect(201);
      expect(res.body.id).toBe(id);
      const dup = await t().post(m.path, { ...c.make(m.ctx, m.seq++), id }).expect(400);
      expect(dup.body).toHaveProperty('id');
    });

    it('creates a list of objects (201, a list aligned with the input)', async () => {
      const payloads = [c.make(m.ctx, m.seq++), c.make(m.ctx, m.seq++), c.make(m.ctx, m.seq++)];
      const before = await count();
      const res = await t().post(m.path, payloads).expect(201);
      expect(res.body).toHaveLength(3);
      payloads.forEach((p, i) => expectMatches(res.body[i], p, c.writeOnly));
      expect(await count()).toBe(before + 3);
    });

    it('creates nothing when one object of a list is invalid (errors aligned with the input)', async () => {
      const before = await count();
      const bad = c.invalid?.(m.ctx) ?? {};
      const res = await t().post(m.path, [c.make(m.ctx, m.seq++), bad]).expect(400);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body[0]).toEqual({});
      expect(Object.keys(res.body[1]).length).toBeGreaterThan(0);
      expect(await count()).toBe(before);
    });

    it('answers malformed JSON and wrong bodies with 400/415, never 500', async () => {
      const r1 = await t().http.post(m.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'application/json').send('{"name": ');
      expect(r1.status).toBe(400);
      expect(r1.body.detail).toMatch(/^JSON parse error/);
      const r2 = await t().http.post(m.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/plain').send('hello');
      expect(r2.status).toBe(415);
      await t().post(m.path, '"a string"').set('Content-Type', 'application/json').expect(400);
      await t().post(m.path, [1, 'x', null]).expect(400);
      // pynautobot sends a trailing semicolon in the media type
      const r3 = await t().http.post(m.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'application/json;').send(JSON.stringify(c.make(m.ctx, m.seq++)));
      expect(r3.status).toBe(201);
    });
  });
}

/** Updates: one, its own GET output back, a list, all or none (on new objects: seeded where the API creates none). */
function updateContract(m: ModelRun): void {
  const { t, c, detail, strip, fresh } = m;
  describe('update', () => {
    it('updates one object with PATCH; an empty PATCH changes nothing', async () => {
      const obj = await fresh();
      const before = (await t().get(detail(obj.id)).expect(200)).body;
      const empty = await t().patch(detail(obj.id), {}).expect(200);
      expect(strip(empty.body)).toEqual(strip(before));
      const payload = c.update(m.ctx);
      const res = await t().patch(detail(obj.id), payload).expect(200);
      expectMatches(res.body, payload, c.writeOnly);
      const after = (await t().get(detail(obj.id)).expect(200)).body;
      expectMatches(after, payload, c.writeOnly);
    });

    it('accepts its own GET output back as a PUT body unchanged', async () => {
      const obj = await fresh();
      const got = (await t().get(`${detail(obj.id)}?include=computed_fields&include=relationships`).expect(200)).body;
      const put = await t().put(detail(obj.id), got).expect(200);
      const { computed_fields: _c, relationships: _r, config_context: _x, ...plain } = got;
      const { computed_fields: _c2, relationships: _r2, config_context: _x2, ...putPlain } = put.body;
      expect(strip(putPlain)).toEqual(strip(plain));
    });

    it('updates a list of objects with PATCH and PUT on the list URL', async () => {
      const objs = [await fresh(), await fresh(), await fresh()];
      const data = (c.bulkUpdate ?? c.update)(m.ctx);
      const res = await t().patch(m.path, objs.map((o) => ({ id: o.id, ...data }))).expect(200);
      expect(res.body).toHaveLength(3);
      for (const b of res.body) expectMatches(b, data, c.writeOnly);
      const full = await Promise.all(objs.map(async (o) => (await t().get(detail(o.id)).expect(200)).body));
      await t().put(m.path, full).expect(200);
    });

    it('updates nothing when a bulk update names an id that does not exist', async () => {
      const obj = await fresh();
      const missing = randomUUID();
      const before = (await t().get(detail(obj.id)).expect(200)).body;
      const res = await t().patch(m.path, [{ id: obj.id, ...(c.bulkUpdate ?? c.update)(m.ctx) }, { id: missing }]).expect(400);
      expect(JSON.stringify(res.body)).toContain(missing);
      expect(strip((await t().get(detail(obj.id)).expect(200)).body)).toEqual(strip(before));
      await t().patch(m.path, { id: obj.id }).expect(400);
      await t().patch(m.path, [{ name: 'no id' }]).expect(400);
    });
  });
}

/** Deletes: one, a list all or none. */
function deleteContract(m: ModelRun): void {
  const { t, detail, fresh } = m;
  describe('delete', () => {
    it('deletes one object (204), after which it is gone', async () => {
      const obj = await fresh();
      const res = await t().del(detail(obj.id)).expect(204);
      expect(res.text).toBe('');
      await t().get(detail(obj.id)).expect(404);
      await t().del(detail(obj.id)).expect(404);
    });

    it('deletes a list of objects all or none', async () => {
      const objs = [await fresh(), await fresh()];
      const missing = randomUUID();
      const bad = await t().del(m.path, [...objs.map((o) => ({ id: o.id })), { id: missing }]).expect(400);
      expect(JSON.stringify(bad.body)).toContain(missing);
      for (const o of objs) await t().get(detail(o.id)).expect(200);
      await t().del(m.path, objs.map((o) => ({ id: o.id }))).expect(204);
      for (const o of objs) await t().get(detail(o.id)).expect(404);
    });
  });
}
