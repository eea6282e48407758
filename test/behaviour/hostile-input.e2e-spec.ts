import { eachDatabase } from '../../src/core/testing/harness';
import { ALL_RESOURCES } from '../../src/app.module';
import { ResourceRegistry } from '../../src/core/resource/registry';
import { ident, raw, sql } from '../../src/database/sql';
import type { Db } from '../../src/database/db';

/**
 * Whatever a client sends, the answer is a response with a JSON body: 2xx, or a 4xx that
 * changed nothing; never a 5xx. Every list the API root leads to is swept (a model added later
 * is swept too), with filter values, written values, bodies and ids that are wrong in the ways
 * clients get them wrong: wrong types, out-of-range numbers, malformed addresses and dates,
 * control characters, very long text, unbalanced regular expressions, and structures where
 * scalars belong.
 */

/** Filter values: each list is filtered by each of its fields with a few of these. */
const FILTER_VALUES = ['', 'null', 'x'.repeat(3000), '\u0000', '(', '\\', '-1', '99999999999999999999', '1e309', '2020-13-45', '10.0.0.0/33', '::/129', 'not-a-uuid', '00000000-0000-0000-0000-000000000000', '😀'];
/** Lookups tried with a few of them. */
const LOOKUPS = ['__n', '__re', '__gte', '__isnull', '__net_contained', '__in'];
const LOOKUP_VALUES = ['(', '-1', 'not-a-uuid', '10.0.0.0/33'];
/** Query parameters every list has. */
const COMMON_PARAMS = ['id', 'q', 'limit', 'offset', 'sort', 'depth', 'created', 'last_updated', 'tag', 'cf_sel', 'cf_missing', 'exclude_m2m', 'include', 'api_version', 'format', 'brief'];

/** Values written into one field of an otherwise valid object. */
const FIELD_VALUES: unknown[] = [
  null, true, -1, 1.5, 2 ** 63, 1e300, '', 'x'.repeat(5000), '\u0000', '😀'.repeat(200), [], [null], [[]], {}, { id: 'nope' }, { name: 'nope' }, { a: { b: 1 } },
  '00000000-0000-0000-0000-000000000000', 'http://example.invalid/api/dcim/locations/00000000-0000-0000-0000-000000000000/', '10.0.0.1/40', { value: null },
];
/** Whole bodies, as raw text. */
const BODIES = ['', '{', 'null', '1', '"x"', '[1]', '[null]', '[[]]', '{"id":[]}', '[{"id":{}}]', '[{},{}]', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}'];
/** Names every JavaScript object answers to: never a filter, a field or a way to an object's prototype. */
const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
/** Ids in detail URLs. */
const IDS = ['nope', '00000000-0000-0000-0000-000000000000', '%00', '..', 'a'.repeat(500), '%E0%A4%A', '1;2;3'];

/** The tables whose counts differ. */
function diff(before: string, after: string): string {
  const counts = (text: string) => new Map((JSON.parse(text) as { t: string; n: unknown }[]).map((r) => [String(r.t), String(r.n)]));
  const [b, a] = [counts(before), counts(after)];
  return [...a].filter(([name, n]) => b.get(name) !== n).map(([name, n]) => `${name}: ${b.get(name) ?? 0} -> ${n} rows changed`).join(', ');
}

/**
 * `count` of `values`, a different few for each (list, parameter) pair: the sweep stays short, and
 * across lists and fields every value meets every kind of field (text, numbers, choices, related
 * objects, addresses, lists).
 */
function some<T>(values: readonly T[], seed: number, count: number): T[] {
  return Array.from({ length: Math.min(count, values.length) }, (_, k) => values[(seed * count + k) % values.length]);
}

interface Answer {
  status: number;
  body: unknown;
}

/**
 * The lists to sweep, one test each (so the sweep grows with the models, each list within the
 * test time limit); the first test checks that the API root leads a client to exactly these.
 */
const LISTS = ALL_RESOURCES.map((d) => `/api/${d.app}/${d.slug}/`).sort();
const SEED = (list: string) => LISTS.indexOf(list) * 97;

const COUNTER = 'nk_test_committed_writes';

/** Triggers on every table that count, per table, the rows committed statements change (in `COUNTER`). */
async function countCommittedWrites(db: Db, kind: string): Promise<void> {
  const run = (text: string) => db.query(raw(text));
  const mysql = kind === 'mysql';
  const tables = (
    await db.query<{ t: string }>(
      raw(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ${mysql ? 'DATABASE()' : 'current_schema()'} AND table_type = 'BASE TABLE'`),
    )
  )
    .map((r) => String(r.t))
    .filter((name) => name !== 'migrations');
  await run(`CREATE TABLE ${COUNTER} (t VARCHAR(100) PRIMARY KEY, n BIGINT NOT NULL)`);
  await run(`INSERT INTO ${COUNTER} (t, n) VALUES ${tables.map((name) => `('${name}', 0)`).join(', ')}`);
  if (mysql) {
    // One trigger per table and event (MySQL's triggers are per row; cascaded deletes follow a delete that is counted).
    for (const [i, name] of tables.entries()) {
      for (const event of ['INSERT', 'UPDATE', 'DELETE']) await run(`CREATE TRIGGER nk_test_w${i}_${event[0]} AFTER ${event} ON \`${name}\` FOR EACH ROW UPDATE ${COUNTER} SET n = n + 1 WHERE t = '${name}'`);
    }
    return;
  }
  await run(`CREATE FUNCTION nk_test_count_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE ${COUNTER} SET n = n + 1 WHERE t = TG_TABLE_NAME; RETURN NULL; END $$`);
  for (const [i, name] of tables.entries()) {
    await run(`CREATE TRIGGER nk_test_w${i} AFTER INSERT OR UPDATE OR DELETE ON "${name}" FOR EACH ROW EXECUTE FUNCTION nk_test_count_write()`);
    await run(`CREATE TRIGGER nk_test_t${i} AFTER TRUNCATE ON "${name}" FOR EACH STATEMENT EXECUTE FUNCTION nk_test_count_write()`);
  }
}

eachDatabase('hostile input', (t) => {
  /**
   * Filters are swept with every value on every database: a request carries one value in every
   * filter of the list, and those refused are dropped and the rest read again (readMany). The
   * rest is a rotation: PGlite gets a few values per (list, parameter, field), the servers, which
   * run the same statements through another driver and dialect, one of them, chosen by the same
   * rotation: across the lists and fields, every value still meets every kind of field on every
   * database.
   */
  const wide = () => t().kind === 'pglite';
  const many = (count: number) => (wide() ? count : 1);
  let lists: string[] = [];
  const seen: string[] = [];
  const fail = (what: string, a: Answer) => seen.push(`${what} -> ${a.status} ${JSON.stringify(a.body)?.slice(0, 200)}`);

  /**
   * Rows changed by committed statements, per table: a counter table kept by triggers on every
   * table of the database (set up in beforeAll). A write rolled back takes its counts with it, so
   * the counts move only when something reached the database for good, whatever the table, the
   * column or the kind of change; reading them is one small statement.
   */
  const fingerprint = async () => JSON.stringify(await t().db.query(sql`SELECT ${ident('t')}, ${ident('n')} FROM ${ident(COUNTER)} WHERE ${ident('n')} > 0 ORDER BY ${ident('t')}`));

  const send = async (method: 'get' | 'post' | 'put' | 'patch' | 'del' | 'options', path: string, body?: string | object): Promise<Answer> => {
    let r = method === 'get' || method === 'options' ? t()[method](path) : t()[method](path);
    if (typeof body === 'string') r = r.set('Content-Type', 'application/json').send(body);
    else if (body !== undefined) r = r.send(body);
    const res = await r;
    return { status: res.status, body: res.body };
  };
  /** The fingerprint after the last refused write, while nothing else was sent since that may write. */
  let known: string | undefined;
  beforeEach(() => (known = undefined));
  /** A write: a 2xx, or a 4xx with a JSON body and no change to the database. */
  const write = async (method: 'post' | 'put' | 'patch' | 'del', path: string, body?: string | object, label?: string): Promise<boolean> => {
    const before = known ?? (await fingerprint());
    known = undefined;
    const a = await send(method, path, body);
    const what = `${method.toUpperCase()} ${path} ${label ?? (typeof body === 'string' ? body : JSON.stringify(body)?.slice(0, 120))}`;
    if (a.status >= 200 && a.status < 300) return true;
    if (a.status >= 500 || a.status < 200) fail(what, a);
    else if (!a.body || typeof a.body !== 'object') fail(`${what} (no JSON body)`, a);
    else {
      const after = await fingerprint();
      if (after !== before) fail(`${what} (changed the database: ${diff(before, after)})`, a);
      known = after;
    }
    return false;
  };
  const read = async (path: string) => {
    const a = await send('get', path);
    if (a.status >= 500 || (a.status !== 200 && (!a.body || typeof a.body !== 'object'))) fail(`GET ${path}`, a);
  };
  /**
   * A list read with many parameters at once, as the contract's garbage section reads: those a
   * 400 names are dropped and the rest read again, until the answer is a 200, so the values that
   * pass validation reach the database together; a 5xx, or a refusal that names none of them, is
   * narrowed down to one request per parameter left.
   */
  const readMany = async (list: string, params: [string, string][]) => {
    const url = (ps: [string, string][]) => `${list}?${ps.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
    let left = params;
    for (let round = 0; left.length && round < 8; round++) {
      const a = await send('get', url(left));
      if (a.status === 200) return;
      const body = a.status === 400 && a.body && typeof a.body === 'object' && !Array.isArray(a.body) ? (a.body as object) : null;
      const refused = body ? left.filter(([k]) => Object.hasOwn(body, k)) : [];
      if (!refused.length) break;
      left = left.filter((p) => !refused.includes(p));
    }
    for (const p of left) await read(url([p]));
  };
  /** The writable fields of a list (OPTIONS), and an object of it that the sweep may change. */
  const shape = async (list: string) => {
    const fields = Object.keys((await t().options(list).expect(200)).body.actions?.POST ?? {});
    const results: Record<string, unknown>[] = (await t().get(`${list}?limit=1000&depth=0`).expect(200)).body.results;
    // Never the superuser the sweep authenticates as, nor its token.
    const target = results.find((o) => String(o.display).includes('victim')) ?? results.find((o) => !list.startsWith('/api/users/'));
    return { fields, target };
  };

  beforeAll(async () => {
    const root = (await t().get('/api/').expect(200)).body as Record<string, string>;
    for (const [app, url] of Object.entries(root)) {
      if (app === 'status') continue;
      const appRoot = (await t().get(new URL(url).pathname).expect(200)).body as Record<string, string>;
      // Special endpoints an app root lists beside its models (users' config) are no model's list.
      const special = new Set(t().app.get(ResourceRegistry).rootLinksOf(app).map((s) => `/api/${app}/${s}/`));
      lists.push(...Object.values(appRoot).map((u) => new URL(u).pathname).filter((p) => !special.has(p)));
    }
    lists = lists.sort();

    await countCommittedWrites(t().db, t().kind);

    // One or two objects of each model, with relations set, so writes reach their deeper rules.
    const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
    const site = await post('/api/dcim/location-types/', { name: 'Site', nestable: true, content_types: ['ipam.prefix', 'ipam.vlan'] });
    const room = await post('/api/dcim/location-types/', { name: 'Room', parent: site.id });
    const group = await post('/api/tenancy/tenant-groups/', { name: 'Group' });
    const tenant = await post('/api/tenancy/tenants/', { name: 'Tenant', tenant_group: group.id });
    const location = await post('/api/dcim/locations/', { name: 'Paris', location_type: site.id, status: 'Active', tenant: tenant.id });
    await post('/api/dcim/locations/', { name: 'Room 1', location_type: room.id, status: 'Active', parent: location.id });
    await post('/api/extras/tags/', { name: 'Tag', content_types: ['ipam.prefix', 'tenancy.tenant', 'dcim.location'] });
    const role = await post('/api/extras/roles/', { name: 'Role', content_types: ['ipam.prefix', 'ipam.ipaddress', 'ipam.vlan'] });
    const select = await post('/api/extras/custom-fields/', { label: 'Sel', key: 'sel', type: 'select', content_types: ['tenancy.tenant', 'ipam.prefix'] });
    await post('/api/extras/custom-field-choices/', { custom_field: select.id, value: 'gold' });
    await post('/api/extras/custom-fields/', { label: 'Num', key: 'num', type: 'integer', content_types: ['tenancy.tenant'] });
    await post('/api/extras/computed-fields/', { content_type: 'tenancy.tenant', label: 'Computed', template: '{{ obj.name }} {{ obj.tenant_group.name }}' });
    const target = await post('/api/ipam/route-targets/', { name: '65000:1' });
    await post('/api/ipam/vrfs/', { name: 'VRF', rd: '65000:1', import_targets: [target.id] });
    const rir = await post('/api/ipam/rirs/', { name: 'RIPE' });
    const vlanGroup = await post('/api/ipam/vlan-groups/', { name: 'VLANs' });
    const vlan = await post('/api/ipam/vlans/', { vid: 10, name: 'ten', status: 'Active', vlan_group: vlanGroup.id, locations: [location.id] });
    await post('/api/ipam/prefixes/', { prefix: '10.0.0.0/8', status: 'Active', type: 'container', rir: rir.id, tags: [{ name: 'Tag' }] });
    await post('/api/ipam/prefixes/', { prefix: '10.1.0.0/24', status: 'Active', vlan: vlan.id, tenant: tenant.id, role: role.id, locations: [location.id], custom_fields: { sel: 'gold' } });
    await post('/api/ipam/namespaces/', { name: 'Other' });
    const address = await post('/api/ipam/ip-addresses/', { address: '10.1.0.5/24', status: 'Active', namespace: 'Global' });
    await post('/api/ipam/ip-addresses/', { address: '10.1.0.6/24', status: 'Active', namespace: 'Global', nat_inside: address.id, role: role.id });
    await post('/api/extras/notes/', { assigned_object_type: 'dcim.location', assigned_object_id: location.id, note: 'a note' });
    await post('/api/users/groups/', { name: 'victim group' });
    await post('/api/users/users/', { username: 'victim', password: 'victim-password-123' });
    await post('/api/users/tokens/', { description: 'victim' });
    await post('/api/users/permissions/', { name: 'victim permission', object_types: ['dcim.location'], actions: ['view'] });
  });

  afterEach(() => {
    const found = seen.splice(0);
    expect(found).toEqual([]);
  });

  it('finds every list to sweep from the API root', () => {
    expect(lists).toEqual(LISTS);
  });

  it('sees every row a committed write changes, and none of a refused one', async () => {
    const before = await fingerprint();
    const tag = (await t().post('/api/extras/tags/', { name: 'counted' }).expect(201)).body;
    const created = await fingerprint();
    expect(diff(before, created)).toMatch(/extras_tag: \d+ -> \d+ rows changed/);
    expect((await t().post('/api/extras/tags/', { name: 'counted' })).status).toBe(400);
    expect(await fingerprint()).toBe(created);
    await t().del(`/api/extras/tags/${tag.id}/`).expect(204);
    expect(diff(created, await fingerprint())).toMatch(/extras_tag: /);
  });

  it.each(LISTS)('answers any filter value with 200 or a JSON 4xx: %s', async (list) => {
    const { fields } = await shape(list);
    const filters = [...new Set(['id', ...fields])];
    // Every value in every field's filter, and every lookup with every lookup value, a value at a time.
    for (const v of FILTER_VALUES) {
      const size = v.length > 100 ? 4 : filters.length; // a request line within what HTTP servers take
      for (let i = 0; i < filters.length; i += size) await readMany(list, filters.slice(i, i + size).map((n) => [n, v]));
    }
    for (const v of LOOKUP_VALUES) await readMany(list, filters.flatMap((n) => LOOKUPS.map((lookup): [string, string] => [n + lookup, v])));
    // The parameters every list reads (refused one at a time, before any filter), a few values each.
    let seed = SEED(list);
    for (const name of COMMON_PARAMS) for (const v of some(FILTER_VALUES, seed++, many(2))) await read(`${list}?${encodeURIComponent(name)}=${encodeURIComponent(v)}`);
  });

  it.each(LISTS)('refuses any wrong value of a field with a JSON 4xx that changes nothing: %s', async (list) => {
    let seed = SEED(list);
    {
      const { fields, target } = await shape(list);
      if (!target) return;
      const detail = `${list}${target.id}/`;
      for (const name of fields) {
        const [a, b, c] = some(FIELD_VALUES, seed++, 3);
        // The object as read, with one field wrong: every other rule of the model is met.
        for (const v of wide() ? [a, b] : [a]) {
          if (!(await write('put', detail, { ...target, [name]: v }, `(as read, with ${name}: ${JSON.stringify(v)?.slice(0, 60)})`))) continue;
          known = undefined;
          await t().put(detail, target).expect(200); // back as it was
        }
        await write('patch', list, [{ id: target.id, [name]: c }]);
        await write('post', list, { [name]: c });
      }
    }
  });

  it.each(LISTS)('refuses malformed bodies and unknown ids with a JSON 4xx that changes nothing: %s', async (list) => {
    let seed = SEED(list);
    {
      const { target } = await shape(list);
      for (const body of some(BODIES, seed++, many(4))) {
        for (const m of ['post', 'put', 'patch', 'del'] as const) await write(m, list, body);
        if (target) for (const m of ['put', 'patch'] as const) await write(m, `${list}${target.id}/`, body);
      }
      for (const id of some(IDS, seed, many(3))) {
        await read(`${list}${id}/`);
        await write('patch', `${list}${id}/`, {});
        await write('del', `${list}${id}/`);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each(LISTS)('treats the names of an object\'s built-in properties as unknown names: %s', async (list) => {
    const params = ['sort', 'include', 'depth', 'format', 'api_version', 'fields', 'exclude_m2m'];
    let seed = SEED(list);
    {
      for (const name of PROTO_NAMES) {
        const a = await send('get', `${list}?${name}=x`);
        if (a.status !== 400 || JSON.stringify(a.body) !== JSON.stringify({ [name]: ['Unknown filter field'] })) fail(`GET ${list}?${name}=x`, a);
        for (const param of some(params, seed++, many(2))) await read(`${list}?${param}=${name}`);
      }
      await write('post', list, `{${PROTO_NAMES.map((n) => `"${n}": {"polluted": 1}`).join(', ')}, "name": "x"}`);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses JSON nested 10,000 deep in every JSON field, changing nothing', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const registry = t().app.get(ResourceRegistry);
    let tried = 0;
    for (const def of registry.all()) {
      const list = `/api/${def.app}/${def.slug}/`;
      if (!lists.includes(list)) continue;
      const { fields, target } = await shape(list);
      const json = Object.entries(def.fields).filter(([n, f]) => f.kind === 'scalar' && f.type === 'json' && fields.includes(n)).map(([n]) => n);
      if (fields.includes('custom_fields')) json.push('custom_fields');
      for (const name of json) {
        tried++;
        const body = name === 'custom_fields' ? `{"custom_fields": {"num": ${deep}}}` : `{"${name}": ${deep}}`;
        await write('post', list, body, `(${name} nested 10,000 deep)`);
        if (target) await write('patch', `${list}${target.id}/`, body, `(${name} nested 10,000 deep)`);
      }
    }
    expect(tried).toBeGreaterThan(3);
  });

  it('refuses wrong allocation requests with a JSON 4xx that changes nothing', async () => {
    const [container] = (await t().get('/api/ipam/prefixes/?prefix=10.0.0.0/8').expect(200)).body.results;
    for (const kind of ['available-ips', 'available-prefixes']) {
      const url = `/api/ipam/prefixes/${container.id}/${kind}/`;
      for (const v of ['-1', '0', '99999999999999999999', 'x', '(']) await read(`${url}?limit=${v}`);
      for (const body of BODIES) await write('post', url, body);
      for (const v of FIELD_VALUES) {
        await write('post', url, { prefix_length: v, status: 'Active' });
        await write('post', url, [{ status: v }]);
      }
    }
  });
});
