import type { ModelRun } from './model-run';
import { ResourceRegistry } from '../../resource/registry';
import type { Obj } from './shared';

const GARBAGE: unknown[] = [null, '', 'x'.repeat(5000), -1, 2 ** 64, true, [null], { a: { b: 1 } }, '\u0000', "'; DROP TABLE x; --", '2024-13-45', 'ÿ💥', '50%', '%ZZ', '%00'];
/** The values an update of a stored object is tried with. */
const UPDATE_GARBAGE: unknown[] = [null, '', 'x'.repeat(5000), 2 ** 64, true, [null], { a: { b: 1 } }, '\u0000'];
const FILTER_VALUES = ['', 'null', '%_\\', '(', "'\"", '-1', '1e999', 'true', '2024-02-30', '../%00', '\u0000', 'ÿ💥'];
const PARAMETER_VALUES = [...FILTER_VALUES, 'x'.repeat(3000)];
/** The parameters every list reads besides its filters (`format` is tried alone). */
const PARAMETERS = ['sort', 'limit', 'offset', 'depth', 'include', 'exclude_m2m', 'q', 'id'];

/**
 * Garbage in every field, filter and parameter: never a 500. Batched so that a model costs a
 * few requests per field rather than one per value: a bulk create of every garbage value (each
 * object otherwise valid and distinct), then the objects that were valid alone, so the values
 * that pass validation reach the database too; one request per value with every filter, then
 * one with every filter that compiled; every paging and rendering parameter at once per value,
 * again without those refused. A 500 in a batch is narrowed down to the single request.
 * Whatever was created is deleted again: the next model shares the server.
 */
export function garbageContract(m: ModelRun): void {
  const { t, c, detail } = m;
  const status = (what: Obj, code: number) => expect({ ...what, ok: code < 500 }).toEqual({ ...what, ok: true });
  const cleanup = async (created: Obj[]) => {
    if (created.length) await t().del(m.path, created.map((o) => ({ id: o.id })));
  };

  describe('garbage in', () => {
    it('never answers 500 to garbage in any field, on create and update', async () => {
      const def = t().app.get(ResourceRegistry).get(m.type)!;
      const names = [...Object.keys(def.fields), 'id', 'custom_fields', 'tags', 'nope'];
      if (!m.creates) {
        // Nothing to create: garbage goes into updates (of an object of its own, where the API changes any).
        const target = m.updates ? await m.fresh() : m.fixtures[0];
        for (const name of names) status({ name }, (await t().patch(detail(target.id), { [name]: GARBAGE[names.indexOf(name) % GARBAGE.length] })).status);
        return;
      }
      // One payload per garbage value, reused for every field: some models have a finite pool of valid ones.
      const ns = GARBAGE.map(() => m.seq++);
      for (const name of names) {
        const bodies = GARBAGE.map((value, i) => ({ ...c.make(m.ctx, ns[i]), [name]: value }));
        const res = await t().post(m.path, bodies);
        if (res.status >= 500) {
          for (const [i, body] of bodies.entries()) {
            const one = await t().post(m.path, body);
            status({ name, value: GARBAGE[i] }, one.status);
            if (one.status === 201) await cleanup([one.body]);
          }
          continue;
        }
        status({ name }, res.status);
        if (res.status === 201) {
          await cleanup(res.body);
          continue;
        }
        // The objects that were valid on their own: saved together, so their values reach the database.
        const valid = Array.isArray(res.body) ? bodies.filter((_, i) => res.body[i] && !Object.keys(res.body[i]).length) : [];
        if (!valid.length) continue;
        const again = await t().post(m.path, valid);
        if (again.status >= 500) for (const body of valid) status({ name, value: body[name] }, (await t().post(m.path, body)).status);
        status({ name, valid: valid.map((b) => b[name]) }, again.status);
        if (again.status === 201) await cleanup(again.body);
      }
      const target = await m.create(c.make(m.ctx, m.seq++));
      for (const name of names.slice(0, 6)) {
        for (const value of UPDATE_GARBAGE) status({ name, value, update: true }, (await t().patch(detail(target.id), { [name]: value })).status);
      }
      await cleanup([target]);
    });

    it('never answers 500 to garbage in filters, sort and paging', async () => {
      const def = t().app.get(ResourceRegistry).get(m.type)!;
      const keys = [...Object.keys(def.fields).flatMap((k) => [k, `${k}__n`, `${k}__ic`, `${k}__gt`, `${k}__isnull`, `${k}__re`]), 'q', 'id', 'cf_x', 'tag'];
      const query = (pairs: [string, string][]) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
      for (const v of FILTER_VALUES) {
        // Every filter at once: the compiler reports every bad parameter together...
        const all = await t().get(`${m.path}?${query(keys.map((k) => [k, v]))}`);
        status({ v }, all.status);
        // ...and every filter that compiled runs against the database at once.
        const bad = all.status === 400 && all.body && typeof all.body === 'object' ? Object.keys(all.body) : [];
        const good = keys.filter((k) => !bad.includes(k));
        const res = await t().get(`${m.path}?${query(good.map((k) => [k, v]))}`);
        if (res.status >= 500) for (const k of good) status({ k, v }, (await t().get(`${m.path}?${query([[k, v]])}`)).status);
        status({ v, compiled: good.length }, res.status);
      }
      const alone = async (k: string, v: string) => status({ k, v }, (await t().get(`${m.path}?${query([[k, v]])}`)).status);
      for (const v of PARAMETER_VALUES) {
        // Every parameter at once with the value: those a 4xx names are refused (not failed); the
        // rest go again together, until they pass. An answer that names none of them (a 5xx, a
        // refusal of the whole request) sends each one alone.
        let left = PARAMETERS;
        while (left.length) {
          const res = await t().get(`${m.path}?${query(left.map((k) => [k, v]))}`);
          if (res.status < 400) break;
          const named = res.status < 500 && res.body && typeof res.body === 'object' && !Array.isArray(res.body) ? left.filter((k) => k in res.body) : [];
          if (!named.length) {
            for (const k of left) await alone(k, v);
            break;
          }
          left = left.filter((k) => !named.includes(k));
        }
        // Negotiates the response's format before any parameter is read: alone.
        await alone('format', v);
      }
    });

    it('q is free text: any value, numbers of any size included, is a 200', async () => {
      for (const v of ['5.5', '-1', '4294967296', '99999999999999999999', '1e999', '50%', '%ZZ', '(', 'ÿ💥']) {
        const res = await t().get(`${m.path}?q=${encodeURIComponent(v)}`);
        expect({ v, status: res.status }).toEqual({ v, status: 200 });
      }
    });
  });
}
