import { parse as parseCsv } from 'csv-parse/sync';
import { listPath, objectType, ResourceDefinition } from '../../resource/definition';
import { ResourceRegistry } from '../../resource/registry';
import type { TestApp } from '../harness';
import type { Obj } from './shared';
import type { ForeignKeyField, ManyToManyField } from '../../resource/fields';

const MARK = 'LEAKMARK';
/** Writable text fields a marker is written into, first match wins (never a name: names carry meaning, e.g. the Global namespace). */
const MARK_FIELDS = ['description', 'comments', 'note', 'last_name', 'dns_name'];
/** Models whose every object is owned by one user (tokens): their own suites cover them. */
const OWNED = new Set(['users.token']);

/** The path and query of a page link. */
export const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

const idOf = (v: unknown): string | null => (v && typeof v === 'object' && 'id' in (v as Obj) ? String((v as Obj).id) : null);
const sorted = (ids: Iterable<string>) => [...ids].sort();

/**
 * No read path shows a constrained user anything of an object it may not view (security issue
 * 24), for every model the app registers. A third of every model's objects is hidden from a user
 * who may view everything else, and a marker is written into each hidden object's text. Then,
 * model by model: lists at depth 0 to 3, details, CSV, existence filters (`has_*`), filters
 * through every foreign key, sorting by every foreign key, count fields and notes. Anywhere, a
 * hidden object may appear only as a bare reference ({id, object_type, url}); its marker and its
 * display never; counts and filters agree with what is visible. `tested` (default: every model)
 * are the models whose read paths are checked; the objects of all are hidden alike.
 */
export function leakContract(t: () => TestApp, resources: ResourceDefinition[], tested: ResourceDefinition[] = resources): void {
  let registry: ResourceRegistry;
  let user = '';
  const all = new Map<string, Obj[]>();
  const hidden = new Map<string, Set<string>>();
  /** Every hidden id, of any model: ids are unique per table only (fixtures choose some, e.g. a circuit's and a module bay's). */
  const hiddenIds = new Set<string>();
  /** Whether a representation is of a hidden object: by its own type where it says it, else by its id alone. */
  const isHidden = (o: Obj) => (typeof o.object_type === 'string' ? !!hidden.get(o.object_type)?.has(o.id) : hiddenIds.has(o.id));
  const secrets = new Set<string>();
  const models = resources.filter((d) => !OWNED.has(objectType(d)));
  const visibleOf = (type: string) => (all.get(type) ?? []).filter((o) => !hidden.get(type)?.has(o.id));
  /** Ids an object points at through a path of relations (`cluster__location`), each hop among the visible objects. */
  const pointsAt = (type: string, o: Obj, path: string): string[] => {
    const [hop, ...rest] = path.split('__');
    const ids = [o[hop]].flat().map(idOf).filter((x): x is string => !!x);
    const f = registry.get(type)?.fields[hop];
    if (!rest.length || !f || f.kind !== 'fk') return rest.length ? [] : ids;
    const next = objectType(f.target());
    return visibleOf(next).filter((x) => ids.includes(x.id)).flatMap((x) => pointsAt(next, x, rest.join('__')));
  };

  /** A many-to-many field's links where they are objects of a tested model (a through model): the model and its two keys' names. */
  const linkObjects = (f: ForeignKeyField | ManyToManyField) => {
    if (f.kind !== 'm2m' || f.through.discriminator) return undefined;
    const through = registry.modelOfTable(f.through.table);
    if (!through || !all.has(objectType(through))) return undefined;
    const keyOf = (column: string) => Object.values(through.fields).find((x) => x.kind === 'fk' && x.column === column)?.name;
    const [source, target] = [keyOf(f.through.source), keyOf(f.through.target)];
    return source && target ? { through, source, target } : undefined;
  };

  /**
   * Whether a representation (JSON) or a CSV text shows the marker, a hidden object's display (a
   * whole value, or one name of a tree display "A → B", never a longer name that contains it), or a
   * hidden object as more than a bare reference. One pass over the body, one assertion per kind of
   * finding: a body holds thousands of strings and the run hundreds of secrets.
   */
  const assertClean = (where: string, body: unknown) => {
    const csv = typeof body === 'string';
    const text = csv ? body : JSON.stringify(body);
    expect({ where, marker: text.includes(MARK) }).toEqual({ where, marker: false });
    const leaked = new Set<string>();
    const check = (s: string) => {
      if (secrets.has(s)) leaked.add(s);
      else if (s.includes(' → ')) for (const part of s.split(' → ')) if (secrets.has(part)) leaked.add(part);
    };
    const exposed: { id: string; keys: string[] }[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === 'string') return check(v);
      if (Array.isArray(v)) return v.forEach(walk);
      if (!v || typeof v !== 'object') return;
      const o = v as Obj;
      // An object's representation (JSON a client stored, such as a permission's constraints, may hold ids too).
      if (typeof o.id === 'string' && ('object_type' in o || 'url' in o) && isHidden(o)) {
        const keys = Object.keys(o).filter((k) => k !== 'generic_foreign_key').sort();
        if (keys.join() !== 'id,object_type,url') exposed.push({ id: o.id, keys });
      }
      for (const [k, x] of Object.entries(o)) {
        check(k);
        walk(x);
      }
    };
    if (csv) (parseCsv(body) as string[][]).forEach((row) => row.forEach(check));
    else walk(body);
    expect({ where, leaked: [...leaked] }).toEqual({ where, leaked: [] });
    // Shown only as a bare reference: {id, object_type, url}.
    expect({ where, exposed }).toEqual({ where, exposed: [] });
  };
  const get = async (path: string, token = user) => {
    const res = await t().get(path, token);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    // A list longer than a page (the change records of a whole run): every page of it.
    for (let next = res.body?.next as string | null; next; ) {
      const more = await t().get(pathOf(next), token);
      expect({ path: next, status: more.status }).toEqual({ path: next, status: 200 });
      res.body.results.push(...more.body.results);
      next = more.body.next;
    }
    return res.body;
  };

  beforeAll(async () => {
    registry = t().app.get(ResourceRegistry);
    for (const d of models) all.set(objectType(d), (await get(`${listPath(d)}?limit=1000`, t().token)).results);
    // Every third object is hidden; its text gets a marker.
    for (const d of models) {
      const type = objectType(d);
      const objs = [...(all.get(type) ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1));
      const set = new Set(objs.filter((_, i) => i % 3 === 1).map((o) => o.id as string));
      hidden.set(type, set);
      const field = d.readOnly ? undefined : MARK_FIELDS.find((f) => d.fields[f]?.kind === 'scalar' && !d.fields[f].readOnly);
      const marked = objs.filter((x) => set.has(x.id));
      if (!marked.length) continue;
      // One bulk update and one bulk note create per model: the marking costs a request per model, not per object.
      if (field) {
        const res = await t().patch(listPath(d), marked.map((o) => ({ id: o.id, [field]: field === 'dns_name' ? `${MARK.toLowerCase()}-${o.id.slice(0, 8)}.example.com` : `${MARK}-${o.id.slice(0, 8)}` })));
        expect({ type, status: res.status, body: res.status === 200 ? null : res.body }).toEqual({ type, status: 200, body: null });
      }
      if (d.features.includes('notes')) {
        const res = await t().post('/api/extras/notes/', marked.map((o) => ({ assigned_object_type: type, assigned_object_id: o.id, note: `${MARK} note` })));
        expect({ type, notes: res.status, body: res.status === 201 ? null : res.body }).toEqual({ type, notes: 201, body: null });
      }
    }
    // A note belongs to its object: the notes of hidden objects are hidden too.
    const notes = (await get('/api/extras/notes/?limit=1000', t().token)).results as Obj[];
    all.set('extras.note', notes);
    for (const n of notes) if (hidden.get(n.assigned_object_type)?.has(n.assigned_object_id)) hidden.get('extras.note')!.add(n.id);
    for (const set of hidden.values()) set.forEach((id) => hiddenIds.add(id));
    // The displays of hidden objects that nothing visible shares: none may appear.
    const shared = new Set<string>();
    const collect = (v: unknown): void => {
      if (typeof v === 'string') shared.add(v);
      else if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === 'object') Object.values(v).forEach(collect);
    };
    for (const d of models) for (const o of visibleOf(objectType(d))) collect(o);
    for (const d of models) for (const o of all.get(objectType(d))!.filter((x) => hidden.get(objectType(d))!.has(x.id))) if (String(o.display).length > 5 && !shared.has(o.display)) secrets.add(String(o.display));
    user = await t().userWith(
      'leak-reader',
      models.map((d) => ({ types: [objectType(d)], actions: ['view'], constraints: hidden.get(objectType(d))!.size ? { id__n: sorted(hidden.get(objectType(d))!) } : null })),
    );
    // Again, as they are now: markers written, the reader and its permissions made.
    for (const d of models) all.set(objectType(d), (await get(`${listPath(d)}?limit=1000`, t().token)).results);
    // Objects that share their owner's scope through a generic key (notes, change records, some
    // written just now) are hidden with a hidden owner; an owner that is gone (a deleted object's
    // change records) shows only to a reader who sees its whole type.
    for (const d of models.filter((x) => x.scopeVia)) {
      const f = d.fields[d.scopeVia!];
      if (f.kind !== 'gfk') continue;
      for (const o of all.get(objectType(d)) ?? []) {
        const ownerType = o[f.typeKey!] as string;
        const owners = all.get(ownerType);
        const gone = !owners?.some((x) => x.id === o[f.idKey!]);
        if (!owners || hidden.get(ownerType)!.has(o[f.idKey!]) || (gone && hidden.get(ownerType)!.size)) {
          hidden.get(objectType(d))!.add(o.id);
          hiddenIds.add(o.id);
        }
      }
    }
  });

  // Objects of every model are hidden and marked (above); the read paths of the tested models are checked.
  for (const d of tested.filter((x) => !OWNED.has(objectType(x)))) {
    const type = objectType(d);
    const path = listPath(d);
    it(`${type}: lists, details and CSV show only what is visible`, async () => {
      const visible = sorted(visibleOf(type).map((o) => o.id));
      for (const depth of [0, 1, 2, 3]) {
        const body = await get(`${path}?limit=1000&depth=${depth}`);
        assertClean(`${path} depth ${depth}`, body);
        expect({ path, depth, count: body.count, ids: sorted(body.results.map((o: Obj) => o.id)) }).toEqual({ path, depth, count: visible.length, ids: visible });
      }
      for (const id of visible.slice(0, 3)) assertClean(`${path}${id}/`, await get(`${path}${id}/?depth=2`));
      for (const id of [...hidden.get(type)!].slice(0, 3)) {
        expect({ id, status: (await t().get(`${path}${id}/`, user)).status }).toEqual({ id, status: 404 });
        expect({ id, csv: (await t().get(`${path}${id}/?format=csv`, user)).status }).toEqual({ id, csv: 404 });
      }
      const csv = await t().get(`${path}?format=csv`, user).expect(200);
      assertClean(`${path} CSV`, csv.text);
      const [header, ...rows] = parseCsv(csv.text) as string[][];
      expect({ path, csvIds: sorted(rows.map((r) => r[header.indexOf('id')])) }).toEqual({ path, csvIds: visible });
    });

    it(`${type}: existence filters, filters through relations and count fields count only what is visible`, async () => {
      const visible = new Set(visibleOf(type).map((o) => o.id as string));
      for (const rel of registry.relatedSets(d).filter((r) => !OWNED.has(objectType(r.def)))) {
        const owners = new Set<string>();
        if (rel.field.writeOnly) {
          // Not shown (an address's namespace): asked object by object, through the related model's own filter.
          for (const id of visible) if ((await get(`${listPath(rel.def)}?limit=1&${rel.field.name}=${id}`)).count) owners.add(id);
        } else if (linkObjects(rel.field)) {
          // Links that are objects of their own (a through model): a filter counts only those the reader may view.
          const { through, source, target } = linkObjects(rel.field)!;
          const owning = new Set(visibleOf(objectType(rel.def)).map((o) => o.id as string));
          for (const l of visibleOf(objectType(through))) {
            const [from, to] = [idOf(l[source]), idOf(l[target])];
            if (from && to && owning.has(from) && visible.has(to)) owners.add(to);
          }
        } else {
          for (const o of visibleOf(objectType(rel.def))) {
            const v = o[rel.field.name];
            for (const id of Array.isArray(v) ? v.map(idOf) : [idOf(v)]) if (id && visible.has(id)) owners.add(id);
          }
        }
        const has = (await get(`${path}?limit=1000&has_${rel.name}=true`)).results.map((o: Obj) => o.id);
        expect({ filter: `${type} has_${rel.name}`, ids: sorted(has) }).toEqual({ filter: `${type} has_${rel.name}`, ids: sorted(owners) });
      }
      for (const f of Object.values(d.fields)) {
        if (f.kind !== 'fk' || f.filter === false || f.writeOnly) continue;
        const target = f.target();
        const field = MARK_FIELDS.find((n) => target.fields[n]?.kind === 'scalar' && target.fields[n].filter !== false);
        if (field && !target.readOnly) {
          const body = await get(`${path}?limit=1000&${f.name}__${field}__ic=${MARK}`);
          expect({ filter: `${type} ${f.name}__${field}__ic`, count: body.count }).toEqual({ filter: `${type} ${f.name}__${field}__ic`, count: 0 });
        }
        const hiddenTarget = [...(hidden.get(objectType(target)) ?? [])][0];
        if (hiddenTarget) {
          const res = await t().get(`${path}?${f.name}=${hiddenTarget}`, user);
          expect({ filter: `${type} ${f.name}=<hidden>`, status: res.status }).toEqual({ filter: `${type} ${f.name}=<hidden>`, status: 400 });
        }
      }
      const counted = Object.values(d.fields).filter((f) => f.kind === 'count');
      if (counted.length) {
        const reps = (await get(`${path}?limit=1000`)).results as Obj[];
        for (const f of counted) {
          if (f.kind !== 'count' || !registry.get(f.model)) continue;
          for (const o of reps) {
            const n = visibleOf(f.model).filter((x) => pointsAt(f.model, x, f.via).includes(o.id)).length;
            expect({ type, field: f.name, id: o.id, value: o[f.name] }).toEqual({ type, field: f.name, id: o.id, value: n });
          }
        }
      }
    });

    it(`${type}: sorting through a relation puts hidden objects where no object would be`, async () => {
      for (const f of Object.values(d.fields)) {
        if (f.kind !== 'fk' || f.sortable === false || f.writeOnly) continue;
        const target = f.target();
        const targetHidden = hidden.get(objectType(target)) ?? new Set<string>();
        // The target's value it is sorted by (its first ordering field, where the representation shows it).
        const key = target.ordering[0]?.replace(/^-/, '');
        const shown = key && target.fields[key]?.kind === 'scalar' ? key : null;
        const targets = new Map((all.get(objectType(target)) ?? []).map((o) => [o.id as string, o]));
        for (const dir of ['', '-']) {
          const list = (await get(`${path}?limit=1000&sort=${dir}${f.name}`)).results as Obj[];
          const none = (o: Obj) => {
            const id = idOf(o[f.name]);
            return !id || targetHidden.has(id) || (shown !== null && (targets.get(id)?.[shown] ?? null) === null);
          };
          const flags = list.map(none);
          // Ascending, objects with no visible related object come last; descending, first; among themselves by id.
          const expected = dir ? [...flags].sort((a, b) => Number(b) - Number(a)) : [...flags].sort((a, b) => Number(a) - Number(b));
          expect({ sort: `${type} ${dir}${f.name}`, flags }).toEqual({ sort: `${type} ${dir}${f.name}`, flags: expected });
          const tail = list.filter(none).map((o) => o.id);
          expect({ sort: `${type} ${dir}${f.name}`, tail }).toEqual({ sort: `${type} ${dir}${f.name}`, tail: sorted(tail) });
        }
      }
    });

    if (d.features.includes('notes')) {
      it(`${type}: notes of hidden objects stay hidden`, async () => {
        for (const id of [...hidden.get(type)!].slice(0, 2)) expect({ id, status: (await t().get(`${path}${id}/notes/`, user)).status }).toEqual({ id, status: 404 });
        const visible = visibleOf(type)[0];
        if (visible) assertClean(`${path}${visible.id}/notes/`, await get(`${path}${visible.id}/notes/`));
        assertClean('/api/extras/notes/', await get(`/api/extras/notes/?limit=1000&assigned_object_type=${type}`));
      });
    }
  }
}
