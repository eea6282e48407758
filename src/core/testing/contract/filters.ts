import { listPath, objectType, ResourceDefinition } from '../../resource/definition';
import type { Field } from '../../resource/fields';
import { ResourceRegistry } from '../../resource/registry';
import type { TestApp } from '../harness';
import { pathOf } from './leaks';

type Obj = Record<string, any>;


/** A field's value in a depth-0 representation, as filter values: ids, strings, choice values. */
function values(f: Field, rep: Obj): string[] | null {
  const v = rep[f.name];
  if (v === null || v === undefined) return null;
  if (f.kind === 'fk') return [v.id];
  if (f.kind === 'm2m') return v.map((x: Obj) => x.id);
  if (f.kind === 'contentTypes') return v;
  if (typeof v === 'object' && 'value' in v) return [String(v.value)];
  return [String(v)];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The generic filter contract (the reference's test_filters_generic and friends), over the
 * objects the models' fixtures and contracts left: for every declared filter of every model,
 * filter by two existing values and compare with what the data says; then each lookup of each
 * string, number and nullable field. `models` (default: all) are the models tested, `loaded`
 * (default: the same) those whose objects the expectations are computed from.
 */
export function filterContract(t: () => TestApp, models?: string[], loaded: string[] | undefined = models): void {
  {
    let registry: ResourceRegistry;
    const all = new Map<string, Obj[]>();
    beforeAll(async () => {
      registry = t().app.get(ResourceRegistry);
      // The objects of every model in `loaded`, not only those tested: a tree foreign key matches the descendants of its targets.
      for (const d of registry.all().filter((x) => !loaded || loaded.includes(objectType(x)))) {
        const res = await t().get(`${listPath(d)}?limit=1000`);
        expect({ list: listPath(d), status: res.status }).toEqual({ list: listPath(d), status: 200 });
        all.set(objectType(d), await everyPage(res.body));
      }
    });

    const ids = async (d: ResourceDefinition, qs: string) => {
      const res = await t().get(`${listPath(d)}?limit=1000&${qs}`);
      if (res.status !== 200) throw new Error(`${listPath(d)}?${qs}: ${res.status} ${JSON.stringify(res.body)}`);
      return (await everyPage(res.body)).map((o) => o.id).sort();
    };
    /** A list's results over every page (the change records of a whole run pass a page). */
    const everyPage = async (body: Obj): Promise<Obj[]> => {
      const out = [...(body.results as Obj[])];
      for (let next = body.next as string | null; next; ) {
        const more = await t().get(pathOf(next));
        if (more.status !== 200) throw new Error(`${next}: ${more.status}`);
        out.push(...more.body.results);
        next = more.body.next;
      }
      return out;
    };
    const expectIds = (objs: Obj[]) => objs.map((o) => o.id).sort();

    /** Tree foreign keys match the given objects and their descendants. */
    const withDescendants = (target: ResourceDefinition, roots: string[]): Set<string> => {
      const out = new Set(roots);
      if (!target.tree) return out;
      const objs = all.get(objectType(target)) ?? [];
      let grew = true;
      while (grew) {
        grew = false;
        for (const o of objs) {
          const p = o[target.tree.parent]?.id;
          if (p && out.has(p) && !out.has(o.id)) {
            out.add(o.id);
            grew = true;
          }
        }
      }
      return out;
    };

    it('filters every model by every declared filter with two values, and by the negation', async () => {
      let checked = 0;
      for (const d of registry.all()) {
        if (models && !models.includes(objectType(d))) continue;
        const objs = all.get(objectType(d)) ?? [];
        for (const f of Object.values(d.fields)) {
          if (f.filter === false || f.writeOnly || !['scalar', 'fk', 'm2m', 'contentTypes'].includes(f.kind)) continue;
          if (f.kind === 'scalar' && f.type === 'json') continue;
          // Empty values are ignored by design (?name= filters nothing), so they make no test.
          const candidates = [...new Set(objs.flatMap((o) => values(f, o) ?? []))].filter((v) => v !== '').slice(0, 2);
          if (!candidates.length) continue;
          const qs = candidates.map((v) => `${f.name}=${encodeURIComponent(v)}`).join('&');
          let expected: Obj[];
          if (f.kind === 'fk') {
            const matchIds = withDescendants(f.target(), candidates);
            if (!f.tree) candidates.forEach((c) => matchIds.add(c));
            expected = objs.filter((o) => o[f.name] && (f.tree ? matchIds : new Set(candidates)).has(o[f.name].id));
          } else if ((f.kind === 'm2m' && f.filterAll) || (f.kind === 'contentTypes' && !f.filterAny)) {
            expected = objs.filter((o) => candidates.every((c) => (values(f, o) ?? []).includes(c)));
          } else {
            expected = objs.filter((o) => (values(f, o) ?? []).some((v) => candidates.includes(v)));
          }
          expect({ filter: `${objectType(d)}?${qs}`, ids: await ids(d, qs) }).toEqual({ filter: `${objectType(d)}?${qs}`, ids: expectIds(expected) });
          if ((f.kind === 'scalar' && f.type !== 'boolean') || f.kind === 'fk') {
            const nqs = `${f.name}__n=${encodeURIComponent(candidates[0])}`;
            const nexp = objs.filter((o) => {
              const v = values(f, o);
              if (f.kind === 'fk' && f.tree) return !v || !withDescendants(f.target(), [candidates[0]]).has(v[0]);
              return !v || !v.includes(candidates[0]);
            });
            expect({ filter: nqs, ids: await ids(d, nqs) }).toEqual({ filter: nqs, ids: expectIds(nexp) });
          }
          checked++;
        }
      }
      // A sanity bound: every model of a full run has filters with two values to tell apart.
      expect(checked).toBeGreaterThan(Math.min(10, all.size));
    });

    it('applies each string, number and null lookup exactly', async () => {
      for (const d of registry.all()) {
        if (models && !models.includes(objectType(d))) continue;
        const objs = all.get(objectType(d)) ?? [];
        for (const f of Object.values(d.fields)) {
          if (f.kind !== 'scalar' || f.filter === false || f.writeOnly) continue;
          const present = objs.map((o) => values(f, o)?.[0]).filter((v): v is string => v !== undefined && v !== '');
          if (f.nullable) {
            expect(await ids(d, `${f.name}__isnull=true`)).toEqual(expectIds(objs.filter((o) => o[f.name] === null)));
            expect(await ids(d, `${f.name}__isnull=false`)).toEqual(expectIds(objs.filter((o) => o[f.name] !== null)));
          }
          if (!present.length) continue;
          const sample = present[0];
          const str = (o: Obj) => values(f, o)?.[0];
          if ((f.type === 'string' || f.type === 'text') && !f.choices) {
            // Filter values are trimmed, as the reference's form fields do: so are the expectations'.
            const mid = (sample.length > 2 ? sample.slice(1, -1) : sample).trim() || sample;
            const head = sample.slice(0, 2).trim() || sample;
            const tail = sample.slice(-2).trim() || sample;
            const cases: [string, (v: string) => boolean][] = [
              [`${f.name}__ic=${encodeURIComponent(mid.toUpperCase())}`, (v) => v.toLowerCase().includes(mid.toLowerCase())],
              [`${f.name}__nic=${encodeURIComponent(mid.toUpperCase())}`, (v) => !v.toLowerCase().includes(mid.toLowerCase())],
              [`${f.name}__isw=${encodeURIComponent(head.toUpperCase())}`, (v) => v.toLowerCase().startsWith(head.toLowerCase())],
              [`${f.name}__nisw=${encodeURIComponent(head)}`, (v) => !v.toLowerCase().startsWith(head.toLowerCase())],
              [`${f.name}__iew=${encodeURIComponent(tail.toUpperCase())}`, (v) => v.toLowerCase().endsWith(tail.toLowerCase())],
              [`${f.name}__niew=${encodeURIComponent(tail)}`, (v) => !v.toLowerCase().endsWith(tail.toLowerCase())],
              [`${f.name}__ie=${encodeURIComponent(sample.toUpperCase())}`, (v) => v.toLowerCase() === sample.toLowerCase()],
              [`${f.name}__nie=${encodeURIComponent(sample.toUpperCase())}`, (v) => v.toLowerCase() !== sample.toLowerCase()],
              [`${f.name}__re=${encodeURIComponent(`^${escapeRe(sample)}$`)}`, (v) => v === sample],
              [`${f.name}__nre=${encodeURIComponent(`^${escapeRe(sample)}$`)}`, (v) => v !== sample],
              [`${f.name}__ire=${encodeURIComponent(`^${escapeRe(sample.toUpperCase())}$`)}`, (v) => v.toLowerCase() === sample.toLowerCase()],
              [`${f.name}__nire=${encodeURIComponent(`^${escapeRe(sample.toUpperCase())}$`)}`, (v) => v.toLowerCase() !== sample.toLowerCase()],
            ];
            for (const [qs, pred] of cases) {
              const negative = /__n/.test(qs);
              const exp = objs.filter((o) => {
                const v = str(o);
                return v === undefined || v === null ? negative : pred(v);
              });
              expect({ filter: `${objectType(d)}?${qs}`, ids: await ids(d, qs) }).toEqual({ filter: `${objectType(d)}?${qs}`, ids: expectIds(exp) });
            }
          }
          if (f.type === 'integer' || f.type === 'decimal') {
            const n = Number(sample);
            for (const [lk, pred] of [
              ['gt', (v: number) => v > n],
              ['gte', (v: number) => v >= n],
              ['lt', (v: number) => v < n],
              ['lte', (v: number) => v <= n],
            ] as const) {
              const exp = objs.filter((o) => str(o) !== undefined && pred(Number(str(o))));
              expect(await ids(d, `${f.name}__${lk}=${sample}`)).toEqual(expectIds(exp));
            }
          }
          if (f.type === 'boolean') {
            for (const b of ['true', 'false']) expect(await ids(d, `${f.name}=${b}`)).toEqual(expectIds(objs.filter((o) => String(o[f.name]) === b)));
          }
        }
      }
    });

    it('rejects malformed values and unknown lookups with 400, and ignores empty values', async () => {
      for (const d of registry.all()) {
        if (models && !models.includes(objectType(d))) continue;
        for (const f of Object.values(d.fields)) {
          if (f.filter === false || f.writeOnly) continue;
          if (f.kind === 'fk') {
            const res = await t().get(`${listPath(d)}?${f.name}=no-such-object-anywhere`).expect(400);
            expect(res.body).toEqual({ [f.name]: ['Select a valid choice. no-such-object-anywhere is not one of the available choices.'] });
            await t().get(`${listPath(d)}?${f.name}=`).expect(200);
          }
          if (f.kind === 'scalar' && (f.type === 'integer' || f.type === 'decimal')) {
            const res = await t().get(`${listPath(d)}?${f.name}=twelve`).expect(400);
            expect(Object.keys(res.body)).toEqual([f.name]);
          }
          if (f.kind === 'scalar' && f.type === 'boolean') await t().get(`${listPath(d)}?${f.name}=perhaps`).expect(400);
          if (f.kind === 'scalar' && (f.type === 'string' || f.type === 'text')) {
            const res = await t().get(`${listPath(d)}?${f.name}__re=${encodeURIComponent('(a+)+$')}`).expect(400);
            expect(Object.keys(res.body)).toEqual([`${f.name}__re`]);
            await t().get(`${listPath(d)}?${f.name}__lt=x`).expect(400);
          }
        }
      }
    });
  }
}
