import { ADMIN_TOKEN, eachDatabase } from '../../src/core/testing/harness';
import { LIST_COUNTING } from '../../src/core/resource/resource.service';
import { sql } from '../../src/database/sql';
import { eventually } from '../support/outside';

/**
 * A list page costs a bounded number of SQL statements whatever its size and depth: one
 * batched statement per related model per level, never one per row (DESIGN rule 4).
 */
eachDatabase(
  'statements per list page',
  (t) => {
    beforeAll(async () => {
      const type = (await t().post('/api/dcim/location-types/', { name: 'Site', nestable: true }).expect(201)).body;
      const group = (await t().post('/api/tenancy/tenant-groups/', { name: 'G' }).expect(201)).body;
      const tenants = (await t().post('/api/tenancy/tenants/', Array.from({ length: 20 }, (_, i) => ({ name: `T${i}`, tenant_group: group.id }))).expect(201)).body;
      const tag = (await t().post('/api/extras/tags/', { name: 'core', content_types: ['dcim.location'] }).expect(201)).body;
      const roots = (await t().post('/api/dcim/locations/', Array.from({ length: 10 }, (_, i) => ({ name: `R${i}`, location_type: type.id, status: 'Active' }))).expect(201)).body;
      const rows = Array.from({ length: 490 }, (_, i) => ({
        name: `L${i}`,
        location_type: type.id,
        status: 'Active',
        parent: roots[i % 10].id,
        tenant: tenants[i % 20].id,
        tags: i % 3 ? [] : [tag.id],
      }));
      await t().post('/api/dcim/locations/', rows).expect(201);
      // The list's total is known small from here on: counted inside the page statement.
      await t().get('/api/dcim/locations/?limit=1').expect(200);
    });

    const cost = async (limit: number, depth: number) => {
      let body: any;
      const n = await t().countStatements(async () => {
        body = (await t().get(`/api/dcim/locations/?limit=${limit}&depth=${depth}`).expect(200)).body;
      });
      expect(body.results).toHaveLength(limit);
      return n;
    };

    for (const depth of [0, 1, 2]) {
      it(`costs the same for pages of 1, 50 and 500 at depth ${depth}`, async () => {
        // The largest first: at depth > 0, the objects nested at depth 0 that it read are kept
        // between requests (serialize/kept-nested.ts), and the smaller pages read fewer of them.
        const [many, fifty, one] = [await cost(500, depth), await cost(50, depth), await cost(1, depth)];
        expect(fifty).toBeLessThanOrEqual(many);
        expect(one).toBeLessThanOrEqual(fifty);
        // The token (not remembered here), then the page with its total, count fields, tags and
        // ancestry in one statement, on every database (MySQL/MariaDB: the tags of each row, the
        // ancestry by joins); deeper, the nested objects' loads.
        expect(many).toBeLessThanOrEqual([2, 7, 10][depth]);
        if (depth === 0) expect(many).toBe(2);
      });
    }

    it('sends a long page whole, with its byte length, and the same length to HEAD', async () => {
      const res = await t().get('/api/dcim/locations/?limit=500&depth=1').expect(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      expect(Buffer.byteLength(res.text)).toBeGreaterThan(300_000); // several of the body's chunks
      expect(res.body.results).toHaveLength(500);
      const head = await t().http.head('/api/dcim/locations/?limit=500&depth=1').set('Authorization', `Token ${ADMIN_TOKEN}`).expect(200);
      expect(head.headers['content-length']).toBe(res.headers['content-length']);
      expect(head.text ?? '').toBe('');
    });

    it('gives the total with the page, and on a page past the end too', async () => {
      const all = (await t().get('/api/dcim/locations/?limit=1').expect(200)).body;
      expect(all.count).toBe(500);
      const filtered = (await t().get('/api/dcim/locations/?limit=7&offset=7&parent=R3').expect(200)).body;
      expect([filtered.count, filtered.results.length]).toEqual([49, 7]);
      const past = (await t().get('/api/dcim/locations/?limit=10&offset=100000').expect(200)).body;
      expect([past.count, past.results, past.next]).toEqual([500, [], null]);
      expect(past.previous).toContain('offset=99990');
    });

    it('counts a total inside the page statement once the same count was small, alongside it once large', async () => {
      const path = '/api/dcim/locations/?limit=5&offset=5&status=Active';
      const bodies: any[] = [];
      const cost = () => t().countStatements(async () => bodies.push((await t().get(path).expect(200)).body));
      const first = await cost(); // a new count statement: counted on its own
      const second = await cost(); // its total (500) was small: inside the page statement
      expect(second).toBe(first - 1);
      const saved = LIST_COUNTING.inlineMax;
      LIST_COUNTING.inlineMax = 100;
      try {
        const third = await cost(); // 500 is large now: on its own again, every time
        expect([third, await cost()]).toEqual([first, first]);
      } finally {
        LIST_COUNTING.inlineMax = saved;
      }
      for (const b of bodies) expect([b.count, b.results.length, b.next, b.results.map((r: any) => r.name)]).toEqual([500, 5, expect.stringContaining('offset=10'), bodies[0].results.map((r: any) => r.name)]);
      expect(bodies[0].results[0]).not.toHaveProperty('__total');
    });

    it('lists many-to-many items in a page as in the object itself, in order, at any depth', async () => {
      const extra = (await t().post('/api/extras/tags/', { name: 'access', content_types: ['dcim.location'] }).expect(201)).body;
      const l0 = (await t().get('/api/dcim/locations/?name=L0').expect(200)).body.results[0];
      await t().patch(`/api/dcim/locations/${l0.id}/`, { tags: [...l0.tags.map((x: any) => x.id), extra.id] }).expect(200);
      for (const depth of [0, 1]) {
        const listed = (await t().get(`/api/dcim/locations/?name=L0&name=L1&depth=${depth}`).expect(200)).body.results;
        for (const item of listed) expect(item.tags).toEqual((await t().get(`/api/dcim/locations/${item.id}/?depth=${depth}`).expect(200)).body.tags);
        expect(listed.find((x: any) => x.name === 'L0').tags.length).toBe(2);
        if (depth) expect(listed.find((x: any) => x.name === 'L0').tags.map((x: any) => x.name)).toEqual(['access', 'core']);
      }
    });

    it('costs no more statements with exclude_m2m=true, and leaves the lists out', async () => {
      const withM2m = await t().countStatements(() => t().get('/api/dcim/locations/?limit=100').expect(200));
      const without = await t().countStatements(async () => {
        const res = await t().get('/api/dcim/locations/?limit=100&exclude_m2m=true').expect(200);
        expect(res.body.results[0]).not.toHaveProperty('tags');
      });
      // The lists are part of the page statement: they cost no statement.
      expect(without).toBe(withM2m);
    });
  },
  // Counts that do not depend on whether the request's token was remembered (CREDENTIAL_CACHE).
  { env: { CREDENTIAL_CACHE: 'false' } },
);

/**
 * A detail is one statement once its token is remembered: the object's row with its count
 * fields, ancestry and many-to-many ids joined in, as a list page has them on PostgreSQL. On
 * MySQL/MariaDB the ancestry is read by a chain of joins (MariaDB's recursive CTE costs temporary
 * tables) of eight ancestors: an object deeper in its tree has its ancestry read by a statement
 * of its own.
 */
eachDatabase('statements per detail', (t) => {
  /**
   * Waits until the requester's token is remembered: the API root then costs no statement. On
   * MySQL/MariaDB that needs a first poll of the change counts, which a loaded machine may not
   * have finished by the next request.
   */
  const remembered = async () => expect(await eventually(async () => (await t().countStatements(() => t().get('/api/').expect(200))) === 0)).toBe(true);

  it('reads an object with its counts, ancestry and tags in one statement', async () => {
    const type = (await t().post('/api/dcim/location-types/', { name: 'Site', nestable: true, content_types: ['ipam.prefix'] }).expect(201)).body;
    const tags = (await t().post('/api/extras/tags/', [{ name: 'b', content_types: ['dcim.location'] }, { name: 'a', content_types: ['dcim.location'] }]).expect(201)).body;
    const root = (await t().post('/api/dcim/locations/', { name: 'root', location_type: type.id, status: 'Active' }).expect(201)).body;
    const leaf = (await t().post('/api/dcim/locations/', { name: 'leaf', location_type: type.id, status: 'Active', parent: root.id, tags: tags.map((x: any) => x.id) }).expect(201)).body;
    await t().post('/api/ipam/prefixes/', { prefix: '10.0.0.0/24', status: 'Active', locations: [leaf.id] }).expect(201);
    await t().get(`/api/dcim/locations/${leaf.id}/`).expect(200);
    for (const depth of [0, 1]) {
      await remembered();
      let body: any;
      const n = await t().countStatements(async () => {
        body = (await t().get(`/api/dcim/locations/${leaf.id}/?depth=${depth}`).expect(200)).body;
      });
      expect({ depth, statements: n }).toEqual({ depth, statements: depth === 0 ? 1 : expect.any(Number) });
      expect([body.display, body.prefix_count, body.tree_depth, body.tags.map((x: any) => (depth ? x.name : x.id))]).toEqual([
        'root → leaf',
        1,
        1,
        depth ? ['a', 'b'] : [tags[1].id, tags[0].id],
      ]);
    }
  });

  it('reads names of any characters, long id lists and deep trees whole', async () => {
    if (t().kind === 'mysql') {
      // Every session's GROUP_CONCAT bound is raised (MySQL 8's default is 1,024 bytes).
      const [{ n }] = await t().db.query<{ n: unknown }>(sql`SELECT @@SESSION.group_concat_max_len AS n`);
      expect(Number(n)).toBeGreaterThanOrEqual(2 ** 30);
      // And a page's id list (up to 1,000 ids) is looked up in the index, not guessed from its
      // statistics past 200 values (a mostly-NULL column then read the whole table).
      const [{ d }] = await t().db.query<{ d: unknown }>(sql`SELECT @@SESSION.eq_range_index_dive_limit AS d`);
      expect(Number(d)).toBe(0);
      // MariaDB makes no subquery cache (a temporary table per correlated subquery, which a
      // detail's statement of one row never uses); MySQL has none to turn off.
      const [{ v, c }] = await t().db.query<{ v: string; c: unknown }>(sql`SELECT VERSION() AS v, @@SESSION.optimizer_switch LIKE '%subquery_cache=off%' AS c`);
      expect(Number(c)).toBe(/mariadb/i.test(v) ? 1 : 0);
    }
    const type = (await t().post('/api/dcim/location-types/', { name: 'Deep', nestable: true }).expect(201)).body;
    // 40 tags: their ids, comma-joined, are longer than 1,024 bytes.
    const tags = (await t().post('/api/extras/tags/', Array.from({ length: 40 }, (_, i) => ({ name: `deep-${String(39 - i).padStart(2, '0')}`, content_types: ['dcim.location'] }))).expect(201)).body;
    const names: string[] = [];
    let parent: string | null = null;
    for (let level = 0; level < 11; level++) {
      // The separator, an arrow, hex-like text and characters of 2 to 4 UTF-8 bytes.
      names.push(`L${level}, é → 0x2C 漢 😀 ${'z'.repeat(60)}`);
      const at: any = (await t().post('/api/dcim/locations/', { name: names[level], location_type: type.id, status: 'Active', parent, tags: level === 10 ? tags.map((x: any) => x.id) : [] }).expect(201)).body;
      parent = at.id;
      // Read cold (the write emptied the kept chains: kept-ancestry.e2e-spec), then again.
      await remembered();
      let body: any;
      const n = await t().countStatements(async () => {
        body = (await t().get(`/api/dcim/locations/${at.id}/`).expect(200)).body;
      });
      const statements = t().kind === 'mysql' && level > 8 ? 2 : 1;
      expect({ level, statements: n, display: body.display, tree_depth: body.tree_depth }).toEqual({ level, statements, display: names.join(' → '), tree_depth: level });
      expect((await t().get(`/api/dcim/locations/${at.id}/`).expect(200)).body).toEqual(body);
      if (level === 10) expect(body.tags.map((x: any) => x.id)).toEqual([...tags].reverse().map((x: any) => x.id));
    }
  });
});

/**
 * A bulk write costs a fixed number of statements, whatever its size (up to the engine's chunk of
 * 500 objects per INSERT): references resolved, uniqueness checked, rows saved, the change log
 * written and the objects read back in statements over the whole batch, never one per object.
 */
eachDatabase(
  'statements per bulk write',
  (t) => {
    let type: any;
    let root: any;
    let other: any;
    beforeAll(async () => {
      type = (await t().post('/api/dcim/location-types/', { name: 'Site', nestable: true }).expect(201)).body;
      root = (await t().post('/api/dcim/locations/', { name: 'root', location_type: type.id, status: 'Active' }).expect(201)).body;
      other = (await t().post('/api/dcim/locations/', { name: 'other root', location_type: type.id, status: 'Active' }).expect(201)).body;
      const prefixes = ['10.0.0.0/8', '10.1.0.0/16', ...Array.from({ length: 8 }, (_, y) => `10.1.${y}.0/24`)];
      await t().post('/api/ipam/prefixes/', prefixes.map((prefix) => ({ prefix, status: 'Active' }))).expect(201);
    });

    const sizes = [3, 450];
    /** The statements of one request per size, each given the objects of `body(size, round)`; the bodies' lengths checked. */
    const costs = async (send: (size: number, round: number) => Promise<any>) => {
      const out: number[] = [];
      for (const [round, size] of sizes.entries()) out.push(await t().countStatements(() => send(size, round)));
      return out;
    };
    const locations = (size: number, round: number) => Array.from({ length: size }, (_, i) => ({ name: `L${round}-${size}-${i}`, location_type: type.id, status: 'Active', parent: root.id }));
    const created: Record<string, string[][]> = { locations: [], addresses: [] };

    it('creates locations and IP addresses (each placed under its parent prefix) in as many statements for 3 as for 450', async () => {
      const loc = await costs(async (size, round) => {
        const res = await t().post('/api/dcim/locations/', locations(size, round)).expect(201);
        expect(res.body.map((l: any) => l.parent.id)).toEqual(Array(size).fill(root.id));
        created.locations.push(res.body.map((l: any) => l.id));
      });
      const ip = await costs(async (size, round) => {
        const body = Array.from({ length: size }, (_, i) => ({ address: `10.1.${i % 8}.${10 + Math.floor(i / 8) + round * 60}/24`, status: 'Active', namespace: 'Global' }));
        const res = await t().post('/api/ipam/ip-addresses/', body);
        expect([res.status, res.status === 201 ? null : res.body]).toEqual([201, null]);
        expect(new Set(res.body.map((a: any) => a.parent.id)).size).toBe(Math.min(size, 8));
        created.addresses.push(res.body.map((a: any) => a.id));
      });
      expect({ loc, ip }).toEqual({ loc: [loc[0], loc[0]], ip: [ip[0], ip[0]] });
    });

    it('reads a create\'s and a delete\'s rows once, and no tags, links or counts of new objects where the request wrote none, but those it wrote', async () => {
      const tag = (await t().post('/api/extras/tags/', { name: 'fresh', content_types: ['dcim.location'] }).expect(201)).body;
      const { dialect } = t().db;
      const render = dialect.render.bind(dialect);
      const texts: string[] = [];
      const made: { id: string }[] = [];
      const spy = jest.spyOn(dialect, 'render').mockImplementation((f) => {
        const out = render(f);
        texts.push(out.text);
        return out;
      });
      const create = async (tags: string[]) => {
        texts.length = 0;
        const res = await t().post('/api/dcim/locations/', ['a', 'b'].map((n) => ({ name: `fresh-${n}-${tags.length}`, location_type: type.id, status: 'Active', parent: root.id, tags }))).expect(201);
        // Statements that read a table of tags or of the counted objects (devices, racks, prefixes' assignments).
        const reads = texts.filter((x) => /^\s*(SELECT|WITH)\b/i.test(x) && /extras_taggeditem|dcim_device|dcim_rack|ipam_prefixlocationassignment/.test(x)).length;
        made.push(...res.body.map((l: any) => ({ id: l.id })));
        // The new rows themselves: read once, for the change records and the response alike.
        const rows = texts.filter((x) => /^SELECT \* FROM [`"]dcim_location[`"] WHERE/.test(x)).length;
        for (const l of res.body) expect((await t().get(`/api/dcim/locations/${l.id}/?include=computed_fields,relationships`).expect(200)).body).toEqual(l);
        return { reads, rows, body: res.body.map((l: any) => [l.tags.map((x: any) => x.id), l.device_count, l.rack_count, l.prefix_count]) };
      };
      try {
        expect(await create([])).toEqual({ reads: 0, rows: 1, body: [[[], 0, 0, 0], [[], 0, 0, 0]] });
        // Tags written with the objects: read back for the change records and the response.
        const tagged = await create([tag.id]);
        expect([tagged.body, tagged.rows]).toEqual([[[[tag.id], 0, 0, 0], [[tag.id], 0, 0, 0]], 1]);
        expect(tagged.reads).toBeGreaterThanOrEqual(2);
        const records = (await t().get('/api/extras/object-changes/?changed_object_type=dcim.location&limit=2').expect(200)).body.results;
        expect(records.map((r: any) => r.object_data.tags)).toEqual([['fresh'], ['fresh']]);
        // A delete's change records take the rows as its lock read them: the rows are read once.
        texts.length = 0;
        await t().del('/api/dcim/locations/', made).expect(204);
        expect(texts.filter((x) => /^SELECT (t\.)?\* FROM [`"]dcim_location[`"]/.test(x))).toHaveLength(1);
        const gone = (await t().get('/api/extras/object-changes/?changed_object_type=dcim.location&action=delete&limit=4').expect(200)).body.results;
        expect(gone.map((r: any) => r.object_data.name).sort()).toEqual(['fresh-a-0', 'fresh-a-1', 'fresh-b-0', 'fresh-b-1']);
      } finally {
        spy.mockRestore();
      }
    });

    it('imports locations from CSV in as many statements for 3 rows as for 450', async () => {
      const csv = await costs(async (size, round) => {
        const text = ['name,location_type__name,status__name,parent__name', ...Array.from({ length: size }, (_, i) => `C${round}-${i},Site,Active,root`)].join('\n');
        const res = await t().http.post('/api/dcim/locations/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(text);
        expect([res.status, res.body.length]).toEqual([201, size]);
      });
      expect(csv).toEqual([csv[0], csv[0]]);
    });

    it('updates (moving locations to another parent) and deletes locations and IP addresses in as many statements for 3 as for 450', async () => {
      const patch = async (path: string, ids: string[][], extra: object = {}) =>
        costs(async (size, round) => {
          const res = await t().patch(path, ids[round].map((id) => ({ id, description: `changed ${round}`, ...extra }))).expect(200);
          expect(res.body.map((x: any) => [x.description, x.parent?.id])).toEqual(Array(size).fill([`changed ${round}`, 'parent' in extra ? other.id : expect.any(String)]));
        });
      const del = async (path: string, ids: string[][]) => costs((size, round) => t().del(path, ids[round].map((id) => ({ id }))).expect(204));
      const changed = { loc: await patch('/api/dcim/locations/', created.locations, { parent: other.id }), ip: await patch('/api/ipam/ip-addresses/', created.addresses) };
      const deleted = { loc: await del('/api/dcim/locations/', created.locations), ip: await del('/api/ipam/ip-addresses/', created.addresses) };
      expect({ changed, deleted }).toEqual({ changed: { loc: [changed.loc[0], changed.loc[0]], ip: [changed.ip[0], changed.ip[0]] }, deleted: { loc: [deleted.loc[0], deleted.loc[0]], ip: [deleted.ip[0], deleted.ip[0]] } });
      // Left: the roots and the imported locations.
      expect([(await t().get('/api/dcim/locations/?limit=1').expect(200)).body.count, (await t().get('/api/ipam/ip-addresses/?limit=1').expect(200)).body.count]).toEqual([2 + 3 + 450, 0]);
    });
  },
  { env: { CREDENTIAL_CACHE: 'false' } },
);
