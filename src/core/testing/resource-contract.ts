import { randomUUID } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import { eachDatabase, TestApp } from './harness';
import { objectType } from '../resource/definition';
import { ResourceRegistry } from '../resource/registry';

type Obj = Record<string, any>;

/** What the contract suite needs to know of one resource: a few lines of data. */
export interface ResourceContract {
  /** app_label.model */
  objectType: string;
  /** List URL, e.g. /api/dcim/locations/ */
  path: string;
  /** Creates prerequisite objects; the result is passed to the builders below. */
  setup?: (t: TestApp) => Promise<Obj>;
  /** A valid, unique create payload (n distinguishes objects). */
  make: (ctx: Obj, n: number) => Obj;
  /** A PATCH payload (applied to one object). */
  update: (ctx: Obj) => Obj;
  /**
   * Read-only resources (`readOnly: true`): the API refuses every write with 405, so fixtures
   * come from `seed` (through whatever endpoint or service fills the model), and the write
   * tests become one test of the refusals. `make` is then only used as a body to refuse.
   */
  readOnly?: boolean;
  /** Creates the n-th fixture and returns its representation (read-only resources). */
  seed?: (t: TestApp, ctx: Obj, n: number) => Promise<Obj>;
  /** A PATCH payload applied to several objects at once (no unique fields). */
  bulkUpdate?: (ctx: Obj) => Obj;
  /** A create payload that fails validation. */
  invalid?: (ctx: Obj) => Obj;
  /** Expected OPTIONS choices of choice fields. */
  choices?: Record<string, (string | number)[]>;
  /** Field for the ?sort= tests (default name; null to skip). */
  sortField?: string | null;
  /** Model has notes_url / custom_fields. */
  notes?: boolean;
  customFields?: boolean;
  /** Tree model: depth 2 walks parent.parent. */
  tree?: boolean;
  /** Make a three-level chain for tree tests: returns payloads root, child, grandchild. */
  chain?: (ctx: Obj) => Obj[];
  /** Keys returned differently from how they are written (e.g. password is write-only). */
  writeOnly?: string[];
  /** Keys shown only in the response that creates the object (a token's key). */
  createOnly?: string[];
  /** Every user sees only their own objects (tokens): the constrained-scope tests don't apply. */
  ownedOnly?: boolean;
  /** Models a reader must also be able to view to see the fixtures (a note's assigned object). */
  viewAlso?: string[];
  /** Never readable without a permission, even under EXEMPT_VIEW_PERMISSIONS. */
  neverExempt?: boolean;
}

const STANDARD = ['id', 'object_type', 'display', 'url', 'natural_slug'];
const isRef = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).sort().join() === 'id,object_type,url';

/** Compares what was written with what is read back, for the keys written. */
function expectMatches(body: Obj, input: Obj, writeOnly: string[] = []): void {
  for (const [k, v] of Object.entries(input)) {
    if (k === 'custom_fields' || writeOnly.includes(k)) continue;
    const got = body[k];
    if (v === null) expect(got).toBeNull();
    else if (Array.isArray(v)) expect(Array.isArray(got) ? got.length : -1).toBe(v.length);
    else if (typeof v === 'object') expect(got).not.toBeUndefined();
    else if (got && typeof got === 'object' && 'value' in got) expect(String(got.value)).toBe(String(v));
    else if (got && typeof got === 'object' && 'id' in got) expect(typeof got.id).toBe('string');
    else if (typeof got === 'string' && typeof v === 'number') expect(Number(got)).toBe(v);
    else if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v)) expect(new Date(got).getTime()).toBe(new Date(v).getTime());
    else expect(got).toEqual(v);
  }
}

/** A representation without what legitimately differs between two reads (opt-in blocks that write responses always carry). */
const stripWith = (extra: string[]) => (o: Obj) => {
  const rest = { ...o };
  for (const k of ['last_updated', 'computed_fields', 'relationships', ...extra]) delete rest[k];
  return rest;
};

/**
 * The generic API contract every resource honours (Nautobot's APIViewTestCases, plus what
 * netkeel promises beyond them), run on every database of the run.
 */
export function describeResourceContract(c: ResourceContract): void {
  eachDatabase(`${c.objectType} contract`, (t) => {
    let ctx: Obj = {};
    let seq = 1000;
    const fixtures: Obj[] = [];
    const strip = stripWith(c.createOnly ?? []);
    const detail = (id: string) => `${c.path}${id}/`;
    const listAllow = c.readOnly ? 'GET, HEAD, OPTIONS' : 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS';
    const detailAllow = c.readOnly ? 'GET, HEAD, OPTIONS' : 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';
    const create = async (payload: Obj) => {
      const res = await t().post(c.path, payload);
      if (res.status !== 201) throw new Error(`create ${c.path} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Obj;
    };
    const count = async () => (await t().get(`${c.path}?limit=1`).expect(200)).body.count as number;

    beforeAll(async () => {
      ctx = (await c.setup?.(t())) ?? {};
      for (let i = 1; i <= 3; i++) fixtures.push(c.seed ? await c.seed(t(), ctx, i) : await create(c.make(ctx, i)));
    });

    describe('read', () => {
      it('lists with pagination keys and the standard headers', async () => {
        const res = await t().get(c.path).expect(200);
        expect(Object.keys(res.body)).toEqual(['count', 'next', 'previous', 'results']);
        expect(res.body.count).toBeGreaterThanOrEqual(3);
        expect(res.headers['api-version']).toBe('2.4');
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.headers.vary).toMatch(/Accept/);
        expect(res.headers.allow).toBe(listAllow);
      });

      it('returns each object with the standard fields', async () => {
        for (const f of fixtures) {
          const res = await t().get(detail(f.id)).expect(200);
          const b = res.body;
          expect(Object.keys(b).slice(0, 5)).toEqual(STANDARD);
          expect(b.id).toBe(f.id);
          expect(b.object_type).toBe(c.objectType);
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

      // A list page reads what it shows with its own statement (display rows, counts, id lists
      // joined in), a detail reads it by id: the two must agree, at depth 0 and 1.
      it('shows each object on a list page exactly as its detail does', async () => {
        for (const depth of [0, 1]) {
          const ids = fixtures.map((f) => `id=${f.id}`).join('&');
          const page = (await t().get(`${c.path}?${ids}&depth=${depth}`).expect(200)).body.results as Obj[];
          expect(page.map((o) => o.id).sort()).toEqual(fixtures.map((f) => f.id).sort());
          for (const o of page) expect(o).toEqual((await t().get(`${detail(o.id)}?depth=${depth}`).expect(200)).body);
        }
      });

      it('answers 404 with the reference message for an unknown or malformed id', async () => {
        const res = await t().get(detail(randomUUID())).expect(404);
        expect(res.body).toEqual({ detail: expect.stringMatching(/^No \w+ matches the given query\.$/) });
        await t().get(detail('not-a-uuid;really')).expect(404);
        const post = await t().post(detail(fixtures[0].id), {}).expect(405);
        expect(post.body).toEqual({ detail: 'Method "POST" not allowed.' });
        expect(post.headers.allow).toBe(detailAllow);
        // Not valid percent-encoding once Express has decoded the path: still a plain 404.
        await t().get(detail('%25ZZ')).expect(404);
      });

      it('refuses anonymous reads and writes with 403', async () => {
        const r1 = await t().get(c.path, null).expect(403);
        expect(r1.body).toEqual({ detail: 'Authentication credentials were not provided.' });
        expect(r1.headers['api-version']).toBe('2.4');
        await t().post(c.path, c.make(ctx, 1), null).expect(403);
        const r2 = await t().get(c.path, 'ffffffffffffffffffffffffffffffffffffffff').expect(403);
        expect(r2.body).toEqual({ detail: 'Invalid token' });
      });

      it('redirects a path without the trailing slash, keeping the query', async () => {
        const res = await t().get(`${c.path.slice(0, -1)}?limit=2&offset=1`).expect(302);
        expect(res.headers.location).toBe(`${c.path}?limit=2&offset=1`);
      });

      it('renders related objects as {id, object_type, url} at depth 0', async () => {
        const res = await t().get(`${c.path}?depth=0&limit=10`).expect(200);
        for (const obj of res.body.results as Obj[]) {
          for (const [k, v] of Object.entries(obj)) {
            if (k === 'custom_fields' || k === 'computed_fields') continue;
            if (v && typeof v === 'object' && !Array.isArray(v) && 'id' in v) {
              expect(isRef(v)).toBe(true);
              expect((v as Obj).url).toMatch(new RegExp(`/${(v as Obj).id}/$`));
            }
            if (Array.isArray(v)) for (const item of v) if (item && typeof item === 'object') expect(isRef(item)).toBe(true);
          }
        }
      });

      it('nests related objects at depth 1, without their many-to-many fields', async () => {
        const d0 = (await t().get(`${c.path}?depth=0&limit=10`).expect(200)).body.results as Obj[];
        const d1 = (await t().get(`${c.path}?depth=1&limit=10`).expect(200)).body.results as Obj[];
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
          const res = await t().get(`${c.path}?depth=${d}`).expect(400);
          expect(res.body).toEqual({ depth: [expect.any(String)] });
        }
        await t().get(`${c.path}?depth=10`).expect(200);
        await t().post(`${c.path}?depth=1`, c.make(ctx, seq++)).expect(c.readOnly ? 405 : 400);
        if (!c.readOnly) {
          // A refused delete deletes nothing.
          await t().del(`${detail(fixtures[0].id)}?depth=1`).expect(400);
          await t().del(`${c.path}?depth=1`, [{ id: fixtures[0].id }]).expect(400);
          await t().get(detail(fixtures[0].id)).expect(200);
        }
      });

      it('paginates with limit and offset and keeps other parameters in the links', async () => {
        const total = await count();
        const p1 = (await t().get(`${c.path}?limit=1&depth=0`).expect(200)).body;
        expect(p1.results).toHaveLength(1);
        expect(p1.previous).toBeNull();
        expect(p1.next).toMatch(/\?depth=0&limit=1&offset=1$/);
        const p2 = (await t().get(`${c.path}?limit=1&offset=1`).expect(200)).body;
        expect(p2.previous).toMatch(/\?limit=1$/);
        expect(p2.results[0].id).not.toBe(p1.results[0].id);
        const last = (await t().get(`${c.path}?limit=1&offset=${total - 1}`).expect(200)).body;
        expect(last.next).toBeNull();
        const beyond = (await t().get(`${c.path}?offset=${total + 10}`).expect(200)).body;
        expect(beyond).toMatchObject({ count: total, results: [] });
        const bad = (await t().get(`${c.path}?limit=-3&offset=x`).expect(200)).body;
        expect(bad.results.length).toBe(Math.min(total, 50));
      });

      if (c.sortField !== null) {
        it('sorts ascending and descending', async () => {
          const f = c.sortField ?? 'name';
          const asc = (await t().get(`${c.path}?sort=${f}&limit=1000`).expect(200)).body.results.map((o: Obj) => String(o[f]));
          const desc = (await t().get(`${c.path}?sort=-${f}&limit=1000`).expect(200)).body.results.map((o: Obj) => String(o[f]));
          expect(asc).toEqual([...asc].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
          expect(desc).toEqual([...asc].reverse());
          await t().get(`${c.path}?sort=no_such_field`).expect(200);
        });
      }

      it('filters by id and refuses unknown filters', async () => {
        const res = await t().get(`${c.path}?id=${fixtures[0].id}&id=${fixtures[1].id}`).expect(200);
        expect(res.body.count).toBe(2);
        expect(res.body.results.map((o: Obj) => o.id).sort()).toEqual([fixtures[0].id, fixtures[1].id].sort());
        const excluded = await t().get(`${c.path}?id__n=${fixtures[0].id}&limit=1000`).expect(200);
        expect(excluded.body.results.map((o: Obj) => o.id)).not.toContain(fixtures[0].id);
        const bad = await t().get(`${c.path}?ice_cream_flavor=rocky-road`).expect(400);
        expect(bad.body).toEqual({ ice_cream_flavor: ['Unknown filter field'] });
        await t().get(`${c.path}?brief=1`).expect(400);
        await t().get(`${c.path}?id=not-a-uuid`).expect(400);
      });

      it('describes itself with OPTIONS', async () => {
        const res = await t().options(c.path).expect(200);
        expect(res.body).toMatchObject({ name: expect.any(String), renders: expect.any(Array), parses: expect.any(Array) });
        if (c.readOnly) expect(res.body).not.toHaveProperty('actions');
        else expect(res.body.actions.POST).toBeDefined();
        for (const [field, values] of Object.entries(c.choices ?? {})) {
          expect(res.body.actions.POST[field].choices.map((x: Obj) => x.value)).toEqual(values);
          for (const ch of res.body.actions.POST[field].choices) expect(Object.keys(ch).sort()).toEqual(['display', 'value']);
        }
        await t().options(detail(fixtures[0].id)).expect(200);
        await t().options(c.path, null).expect(403);
      });
    });

    if (c.readOnly) {
      it('refuses every write with 405 and changes nothing', async () => {
        const before = await count();
        const id = fixtures[0].id;
        const attempts = [
          t().post(c.path, c.make(ctx, seq++)),
          t().put(c.path, [{ id }]),
          t().patch(c.path, [{ id }]),
          t().del(c.path, [{ id }]),
          t().put(detail(id), fixtures[0]),
          t().patch(detail(id), {}),
          t().del(detail(id)),
        ];
        for (const attempt of attempts) {
          const res = await attempt.expect(405);
          expect(res.body).toEqual({ detail: expect.stringMatching(/^Method "\w+" not allowed\.$/) });
        }
        expect(await count()).toBe(before);
        expect(strip((await t().get(detail(id)).expect(200)).body)).toEqual(strip(fixtures[0]));
      });
    }

    if (!c.readOnly) describe('write', () => {
      it('creates one object (201) and reads back what was written', async () => {
        const payload = c.make(ctx, seq++);
        const before = await count();
        const res = await t().post(c.path, payload).expect(201);
        expectMatches(res.body, payload, c.writeOnly);
        expect(await count()).toBe(before + 1);
        const again = await t().get(detail(res.body.id)).expect(200);
        expect(strip(again.body)).toEqual(strip(res.body));
      });

      it('honours a client-supplied id on create', async () => {
        const id = randomUUID();
        const res = await t().post(c.path, { ...c.make(ctx, seq++), id }).expect(201);
        expect(res.body.id).toBe(id);
        const dup = await t().post(c.path, { ...c.make(ctx, seq++), id }).expect(400);
        expect(dup.body).toHaveProperty('id');
      });

      it('creates a list of objects (201, a list aligned with the input)', async () => {
        const payloads = [c.make(ctx, seq++), c.make(ctx, seq++), c.make(ctx, seq++)];
        const before = await count();
        const res = await t().post(c.path, payloads).expect(201);
        expect(res.body).toHaveLength(3);
        payloads.forEach((p, i) => expectMatches(res.body[i], p, c.writeOnly));
        expect(await count()).toBe(before + 3);
      });

      it('creates nothing when one object of a list is invalid (errors aligned with the input)', async () => {
        const before = await count();
        const bad = c.invalid?.(ctx) ?? {};
        const res = await t().post(c.path, [c.make(ctx, seq++), bad]).expect(400);
        expect(Array.isArray(res.body)).toBe(true);
        expect(res.body[0]).toEqual({});
        expect(Object.keys(res.body[1]).length).toBeGreaterThan(0);
        expect(await count()).toBe(before);
      });

      it('answers malformed JSON and wrong bodies with 400/415, never 500', async () => {
        const r1 = await t().http.post(c.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'application/json').send('{"name": ');
        expect(r1.status).toBe(400);
        expect(r1.body.detail).toMatch(/^JSON parse error/);
        const r2 = await t().http.post(c.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/plain').send('hello');
        expect(r2.status).toBe(415);
        await t().post(c.path, '"a string"').set('Content-Type', 'application/json').expect(400);
        await t().post(c.path, [1, 'x', null]).expect(400);
        // pynautobot sends a trailing semicolon in the media type
        const r3 = await t().http.post(c.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'application/json;').send(JSON.stringify(c.make(ctx, seq++)));
        expect(r3.status).toBe(201);
      });

      it('updates one object with PATCH; an empty PATCH changes nothing', async () => {
        const obj = await create(c.make(ctx, seq++));
        const before = (await t().get(detail(obj.id)).expect(200)).body;
        const empty = await t().patch(detail(obj.id), {}).expect(200);
        expect(strip(empty.body)).toEqual(strip(before));
        const payload = c.update(ctx);
        const res = await t().patch(detail(obj.id), payload).expect(200);
        expectMatches(res.body, payload, c.writeOnly);
        const after = (await t().get(detail(obj.id)).expect(200)).body;
        expectMatches(after, payload, c.writeOnly);
      });

      it('accepts its own GET output back as a PUT body unchanged', async () => {
        const obj = await create(c.make(ctx, seq++));
        const got = (await t().get(`${detail(obj.id)}?include=computed_fields&include=relationships`).expect(200)).body;
        const put = await t().put(detail(obj.id), got).expect(200);
        const { computed_fields: _c, relationships: _r, ...plain } = got;
        const { computed_fields: _c2, relationships: _r2, ...putPlain } = put.body;
        expect(strip(putPlain)).toEqual(strip(plain));
      });

      it('updates a list of objects with PATCH and PUT on the list URL', async () => {
        const objs = [await create(c.make(ctx, seq++)), await create(c.make(ctx, seq++)), await create(c.make(ctx, seq++))];
        const data = (c.bulkUpdate ?? c.update)(ctx);
        const res = await t().patch(c.path, objs.map((o) => ({ id: o.id, ...data }))).expect(200);
        expect(res.body).toHaveLength(3);
        for (const b of res.body) expectMatches(b, data, c.writeOnly);
        const full = await Promise.all(objs.map(async (o) => (await t().get(detail(o.id)).expect(200)).body));
        await t().put(c.path, full).expect(200);
      });

      it('updates nothing when a bulk update names an id that does not exist', async () => {
        const obj = await create(c.make(ctx, seq++));
        const missing = randomUUID();
        const before = (await t().get(detail(obj.id)).expect(200)).body;
        const res = await t().patch(c.path, [{ id: obj.id, ...(c.bulkUpdate ?? c.update)(ctx) }, { id: missing }]).expect(400);
        expect(JSON.stringify(res.body)).toContain(missing);
        expect(strip((await t().get(detail(obj.id)).expect(200)).body)).toEqual(strip(before));
        await t().patch(c.path, { id: obj.id }).expect(400);
        await t().patch(c.path, [{ name: 'no id' }]).expect(400);
      });

      it('deletes one object (204), after which it is gone', async () => {
        const obj = await create(c.make(ctx, seq++));
        const res = await t().del(detail(obj.id)).expect(204);
        expect(res.text).toBe('');
        await t().get(detail(obj.id)).expect(404);
        await t().del(detail(obj.id)).expect(404);
      });

      it('deletes a list of objects all or none', async () => {
        const objs = [await create(c.make(ctx, seq++)), await create(c.make(ctx, seq++))];
        const missing = randomUUID();
        const bad = await t().del(c.path, [...objs.map((o) => ({ id: o.id })), { id: missing }]).expect(400);
        expect(JSON.stringify(bad.body)).toContain(missing);
        for (const o of objs) await t().get(detail(o.id)).expect(200);
        await t().del(c.path, objs.map((o) => ({ id: o.id }))).expect(204);
        for (const o of objs) await t().get(detail(o.id)).expect(404);
      });
    });

    describe('garbage in', () => {
      const GARBAGE: unknown[] = [null, '', 'x'.repeat(5000), -1, 2 ** 64, true, [null], { a: { b: 1 } }, '\u0000', "'; DROP TABLE x; --", '2024-13-45', 'ÿ💥', '50%', '%ZZ', '%00'];

      it('never answers 500 to garbage in any field, on create and update', async () => {
        const def = t().app.get(ResourceRegistry).get(c.objectType)!;
        const names = [...Object.keys(def.fields), 'id', 'custom_fields', 'tags', 'nope'];
        const before = await count();
        const n = seq++; // one payload for every attempt: some models have a finite pool of valid ones
        for (const name of names) {
          for (const value of GARBAGE) {
            const res = c.readOnly ? await t().patch(detail(fixtures[0].id), { [name]: value }) : await t().post(c.path, { ...c.make(ctx, n), [name]: value });
            expect({ name, value, status: res.status < 500 }).toEqual({ name, value, status: true });
          }
        }
        for (const name of names.slice(0, 6)) {
          for (const value of GARBAGE) {
            const res = await t().patch(detail(fixtures[0].id), { [name]: value });
            expect({ name, value, status: res.status < 500 }).toEqual({ name, value, status: true });
          }
        }
        if (c.readOnly) expect(await count()).toBe(before);
      });

      it('never answers 500 to garbage in filters, sort and paging', async () => {
        const def = t().app.get(ResourceRegistry).get(c.objectType)!;
        const keys = [...Object.keys(def.fields).flatMap((k) => [k, `${k}__n`, `${k}__ic`, `${k}__gt`, `${k}__isnull`, `${k}__re`]), 'q', 'id', 'cf_x', 'tag'];
        const values = ['', 'null', '%_\\', '(', "'\"", '-1', '1e999', 'true', '2024-02-30', '../%00', '\u0000', 'ÿ💥'];
        // Every filter at once per value: the compiler reports all bad parameters together.
        for (const v of values) {
          const qs = keys.map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
          const res = await t().get(`${c.path}?${qs}`);
          expect({ v, status: res.status < 500 }).toEqual({ v, status: true });
        }
        // Then each filter alone, so that every one that compiles runs against the database.
        for (const k of keys) {
          for (const v of ['%_\\', "'\"", '-1', 'ÿ💥', '1e999']) {
            const res = await t().get(`${c.path}?${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
            expect({ k, v, status: res.status < 500 }).toEqual({ k, v, status: true });
          }
        }
        for (const k of ['sort', 'limit', 'offset', 'depth', 'include', 'exclude_m2m', 'format', 'q', 'id']) {
          for (const v of [...values, 'x'.repeat(3000)]) {
            const res = await t().get(`${c.path}?${k}=${encodeURIComponent(v)}`);
            expect({ k, v, status: res.status < 500 }).toEqual({ k, v, status: true });
          }
        }
      });
    });

    it('q is free text: any value, numbers of any size included, is a 200', async () => {
      for (const v of ['5.5', '-1', '4294967296', '99999999999999999999', '1e999', '50%', '%ZZ', '(', 'ÿ💥']) {
        const res = await t().get(`${c.path}?q=${encodeURIComponent(v)}`);
        expect({ v, status: res.status }).toEqual({ v, status: 200 });
      }
    });

    describe('CSV', () => {
      const model = c.objectType.split('.')[1];
      const csvGet = (path: string) => t().get(path).buffer(true).parse((res, cb) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => cb(null, text));
      });

      it('exports the list with ?format=csv and Accept: text/csv, the same bytes either way', async () => {
        const a = await csvGet(`${c.path}?format=csv`).expect(200);
        const b = await csvGet(c.path).set('Accept', 'text/csv');
        expect(b.status).toBe(200);
        expect(a.headers['content-type']).toBe('text/csv; charset=UTF-8');
        expect(a.headers['content-disposition']).toBe(`attachment; filename="netkeel_${model}_data.csv"`);
        expect(a.body).toBe(b.body);
        const lines = (a.body as string).trim().split(/\r?\n/);
        const header = lines[0].split(',');
        expect(header.slice(0, header.includes('name') ? 3 : 2)).toEqual(header.includes('name') ? ['name', 'display', 'id'] : ['display', 'id']);
        expect(lines.length - 1).toBe(await count());
        const idCol = header.indexOf('id');
        const row = lines.find((l) => l.includes(fixtures[0].id))!;
        expect(row).toBeDefined();
        expect(row.split(',')[idCol]).toBe(fixtures[0].id);
      });

      it('exports exactly the filtered rows, unpaginated', async () => {
        const res = await csvGet(`${c.path}?format=csv&limit=1&id=${fixtures[0].id}&id=${fixtures[1].id}`).expect(200);
        const lines = (res.body as string).trim().split(/\r?\n/);
        expect(lines).toHaveLength(3);
      });

      it('writes every cell as the JSON representation shows it', async () => {
        const exported = await csvGet(`${c.path}?format=csv&${fixtures.map((f) => `id=${f.id}`).join('&')}`).expect(200);
        const [header, ...rows] = parseCsv(exported.body as string) as string[][];
        expect(rows).toHaveLength(fixtures.length);
        const paths = header.filter((h) => h.includes('__') && !h.startsWith('cf_')).map((h) => h.split('__'));
        const depth = Math.min(10, Math.max(1, ...paths.map((p) => p.length - 1)));
        const post = (await t().http.options(c.path).set('Authorization', `Token ${t().token}`)).body.actions?.POST ?? {};
        const cfTypes = new Map<string, string>();
        for (const cf of (await t().get('/api/extras/custom-fields/?limit=1000').expect(200)).body.results) cfTypes.set(cf.key, typeof cf.type === 'object' ? cf.type.value : cf.type);

        const text = (v: unknown, json: boolean): string => {
          if (v === null || v === undefined) return 'NULL';
          if (typeof v === 'boolean') return v ? 'True' : 'False';
          if (json) return JSON.stringify(v);
          if (Array.isArray(v)) return v.join(',');
          if (typeof v === 'object') return 'value' in v && 'label' in v ? String((v as Obj).value) : JSON.stringify(v);
          return String(v);
        };
        // A path through related objects: NoObject past a missing one, NULL for a null value.
        const walk = (o: Obj, path: string[]): string => {
          let cur: Obj | null | undefined = o;
          for (const seg of path.slice(0, -1)) {
            cur = cur?.[seg];
            if (cur === null || cur === undefined) return 'NoObject';
          }
          return text(cur![path[path.length - 1]], false);
        };
        for (const row of rows) {
          const json = (await t().get(`${detail(row[header.indexOf('id')])}?depth=${depth}`).expect(200)).body as Obj;
          const generic: string[] = [];
          header.forEach((h, i) => {
            const cell = row[i];
            let expected: string;
            if (h.startsWith('cf_')) {
              const v = json.custom_fields?.[h.slice(3)];
              const type = cfTypes.get(h.slice(3));
              expected = v === null || v === undefined ? '' : type === 'json' ? JSON.stringify(v) : Array.isArray(v) && !v.length ? '[]' : text(v, false);
            } else if (h === 'tags') {
              expect({ h, cell: cell ? cell.split(',').sort() : [] }).toEqual({ h, cell: (json.tags as Obj[]).map((x) => x.name).sort() });
              return;
            } else if (h.includes('__')) {
              const path = h.split('__');
              expected = walk(json, path);
              if (`${path[0]}_type` in json && cell === '') return; // a generic relation: another type's natural key
              if (`${path[0]}_type` in json) generic.push(h);
            } else expected = text(json[h], post[h]?.type === 'json');
            expect({ h, cell }).toEqual({ h, cell: expected });
          });
          for (const g of new Set(paths.map((p) => p[0]).filter((p) => `${p}_type` in json && json[p]))) expect(generic.filter((h) => h.startsWith(`${g}__`)).length).toBeGreaterThan(0);
        }
      });

      if (!c.readOnly) {
        it('round-trips: export, delete, re-import recreates the same object with the same id and fields', async () => {
          const obj = await create(c.make(ctx, seq++));
          const before = (await t().get(detail(obj.id)).expect(200)).body;
          const exported = await csvGet(`${detail(obj.id)}?format=csv`).expect(200);
          expect(exported.headers['content-disposition']).toBe(`attachment; filename="netkeel_${model}_data.csv"`);
          await t().del(detail(obj.id)).expect(204);
          const res = await t().http.post(c.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(exported.body);
          expect({ status: res.status, body: res.status === 201 ? 'ok' : res.body }).toEqual({ status: 201, body: 'ok' });
          expect(Array.isArray(res.body)).toBe(true);
          expect(res.body[0].id).toBe(obj.id);
          const after = (await t().get(detail(obj.id)).expect(200)).body;
          const same = (o: Obj) => {
            const copy = { ...o };
            for (const k of ['created', 'last_updated', ...(c.createOnly ?? [])]) delete copy[k];
            return copy;
          };
          expect(same(after)).toEqual(same(before));
        });

        it('answers malformed CSV with a 400 naming the row and column, and saves nothing', async () => {
          const post = (body: string | Buffer) => t().http.post(c.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(body);
          const before = await count();
          expect((await post('name,,display\na,b,c\n')).body).toEqual({ detail: 'Row 1: Column 2: missing/empty header for this column.' });
          expect((await post('name,name\na,b\n')).body.detail).toMatch(/^Row 1: Column 2: duplicate header "name"/);
          expect((await post('name,display\na,b\nc\n')).body).toEqual({ detail: 'Row 3: expected 2 columns, got 1.' });
          expect((await post(Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xff, 0xfe, 0x0a]))).status).toBe(400);
          expect((await post('')).status).toBe(400);
          const invalid = await post('id\nnot-a-uuid\n');
          expect(invalid.status).toBe(400);
          expect(Object.keys(invalid.body)).toEqual(['row 2']);
          expect(await count()).toBe(before);
        });
      } else {
        it('refuses CSV imports with 405', async () => {
          await t().http.post(c.path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send('name\nx\n').expect(405);
        });
      }
    });

    describe('permissions', () => {
      let n = 0;
      const who = () => `u${++n}${Math.random().toString(36).slice(2, 6)}`;
      const [app, model] = c.objectType.split('.');
      void app;
      void model;

      /** View on every other model, so related objects in payloads resolve. */
      const others = () => ({ types: t().app.get(ResourceRegistry).all().map(objectType).filter((x) => x !== c.objectType), actions: ['view'] });

      /** The models whose view a reader of this one also needs (notes are visible only with their object). */
      const viewAlso = () => (c.viewAlso ? [{ types: c.viewAlso, actions: ['view'] }] : []);

      if (!c.ownedOnly) it('refuses a user without any permission on the model (403)', async () => {
        const tok = await t().userWith(who(), []);
        const msg = { detail: 'You do not have permission to perform this action.' };
        expect((await t().get(c.path, tok).expect(403)).body).toEqual(msg);
        expect((await t().get(detail(fixtures[0].id), tok).expect(403)).body).toEqual(msg);
        if (!c.readOnly) {
          await t().post(c.path, c.make(ctx, seq++), tok).expect(403);
          await t().patch(detail(fixtures[0].id), {}, tok).expect(403);
          await t().del(detail(fixtures[0].id), undefined, tok).expect(403);
        }
      });

      it('lets a view-only user read but not write', async () => {
        const tok = await t().userWith(who(), [...viewAlso(), { types: [c.objectType], actions: ['view'] }]);
        await t().get(c.path, tok).expect(200);
        if (c.ownedOnly) return;
        await t().get(detail(fixtures[0].id), tok).expect(200);
        const opts = await t().options(c.path, tok).expect(200);
        expect(opts.body).not.toHaveProperty('actions');
        if (!c.readOnly) {
          const before = await count();
          await t().post(c.path, c.make(ctx, seq++), tok).expect(403);
          await t().patch(detail(fixtures[0].id), {}, tok).expect(403);
          await t().del(detail(fixtures[0].id), undefined, tok).expect(403);
          await t().del(c.path, [{ id: fixtures[0].id }], tok).expect(403);
          expect(await count()).toBe(before);
        }
      });

      it('lets a read-only token read but not write, and refuses an expired token', async () => {
        const tok = await t().userWith(who(), [others(), { types: [c.objectType], actions: ['view', 'add', 'change', 'delete'] }]);
        const readOnly = (await t().post('/api/users/tokens/', { write_enabled: false }, tok).expect(201)).body.key;
        const expired = (await t().post('/api/users/tokens/', { expires: '2000-01-01T00:00:00Z' }, tok).expect(201)).body.key;
        await t().get(c.path, readOnly).expect(200);
        if (!c.readOnly) {
          const res = await t().post(c.path, c.make(ctx, seq++), readOnly).expect(403);
          expect(res.body).toEqual({ detail: 'You do not have permission to perform this action.' });
          await t().patch(detail(fixtures[0].id), {}, readOnly).expect(403);
        }
        expect((await t().get(c.path, expired).expect(403)).body).toEqual({ detail: 'Token expired' });
      });

      if (!c.ownedOnly) {
        it('shows a constrained user only the objects in scope: list, detail, filters, CSV', async () => {
          const tok = await t().userWith(who(), [...viewAlso(), { types: [c.objectType], actions: ['view'], constraints: { id: fixtures[0].id } }]);
          const list = await t().get(`${c.path}?limit=1000`, tok).expect(200);
          expect(list.body.count).toBe(1);
          expect(list.body.results.map((o: Obj) => o.id)).toEqual([fixtures[0].id]);
          await t().get(detail(fixtures[1].id), tok).expect(404);
          expect((await t().get(`${c.path}?id=${fixtures[1].id}`, tok).expect(200)).body.count).toBe(0);
          const csv = await t().get(`${c.path}?format=csv`, tok).expect(200);
          const rows = csv.text.trim().split('\n');
          expect(rows).toHaveLength(2);
          expect(csv.text).toContain(fixtures[0].id);
          expect(csv.text).not.toContain(fixtures[1].id);
          // Filtered and constrained at once: exactly the visible rows that match.
          const both = await t().get(`${c.path}?format=csv&id=${fixtures[0].id}&id=${fixtures[1].id}&id=${fixtures[2].id}`, tok).expect(200);
          expect(both.text.trim().split('\n')).toHaveLength(2);
          expect(both.text).toContain(fixtures[0].id);
          const none = await t().get(`${c.path}?format=csv&id=${fixtures[1].id}`, tok).expect(200);
          expect(none.text.trim().split('\n')).toHaveLength(1);
        });

        if (!c.readOnly) {
          it('rolls back a create or update that leaves the scope (403), changing nothing', async () => {
            const outside = randomUUID();
            const tok = await t().userWith(who(), [others(), { types: [c.objectType], actions: ['view', 'add', 'change', 'delete'], constraints: { id: fixtures[0].id } }]);
            const before = await count();
            await t().post(c.path, c.make(ctx, seq++), tok).expect(403);
            await t().post(c.path, [c.make(ctx, seq++), { ...c.make(ctx, seq++), id: outside }], tok).expect(403);
            expect(await count()).toBe(before);
            await t().get(detail(outside)).expect(404);
            await t().patch(detail(fixtures[1].id), {}, tok).expect(404);
            await t().del(detail(fixtures[1].id), undefined, tok).expect(404);
            const bulk = await t().patch(c.path, [{ id: fixtures[0].id }, { id: fixtures[1].id }], tok).expect(400);
            expect(JSON.stringify(bulk.body)).toContain(fixtures[1].id);
            await t().patch(detail(fixtures[0].id), {}, tok).expect(200);
            await t().get(detail(fixtures[1].id)).expect(200);
          });
        }
      }
    });

    if (c.tree && c.chain) {
      it('nests parent.parent at depth 2 and reports tree_depth', async () => {
        const [a, b, cc] = c.chain!(ctx);
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
  });

  eachDatabase(
    `${c.objectType} exempt from view permissions`,
    (t) => {
      it(c.neverExempt ? 'stays closed to anonymous readers' : 'is readable without a token', async () => {
        const res = await t().get(c.path, null);
        if (c.neverExempt) {
          expect(res.status).toBe(403);
          expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
        } else {
          expect(res.status).toBe(200);
          await t().post(c.path, {}, null).expect(403);
        }
      });
    },
    { env: { EXEMPT_VIEW_PERMISSIONS: '*' } },
  );
}
