/**
 * The floor server of the list-page benchmark (issue 25): the least a Node server can do to serve
 * netkeel's locations, to measure netkeel against. Plain `node:http`, `pg` or `mysql2`, no
 * framework; it reads the tables netkeel created (dcim_location and what its counts, ancestry
 * and tags come from) and answers, at depth 0, in the same JSON (same keys, order and values):
 *
 *   GET /api/dcim/locations/?limit=N&offset=M   one COUNT and one page statement (concurrently)
 *   GET /api/dcim/locations/<uuid>/             one statement
 *
 * Everything else is a 404. The token check is a fixed token compared in memory
 * (`Authorization: Token <FLOOR_TOKEN>`). Responses are built for every request
 * (JSON.stringify of the rows mapped to the shape): nothing is cached but prepared statements.
 *
 * What it leaves out, which netkeel does: permissions, filters, sorting, depth, natural-key
 * lookups, versions, CSV, logging. `custom_fields` is the stored data as it is (netkeel lists the
 * defined custom fields; the benchmark defines none).
 *
 * Environment: DATABASE_URL (postgres:// or mysql://), PORT, HOST, FLOOR_TOKEN, FLOOR_POOL_SIZE
 * (10, netkeel's pool size). Prints `floor listening on <host>:<port>` when ready.
 */
import http from 'node:http';
import { Pool as PgPool, types as pgTypes } from 'pg';
import { createPool } from 'mysql2/promise';

type Row = Record<string, any>;

interface Db {
  /** Runs a statement with `?` placeholders (numbered for PostgreSQL), prepared once per connection. */
  query(name: string, text: string, values: unknown[]): Promise<Row[]>;
}

const PAGINATE_COUNT = 50;
const MAX_PAGE_SIZE = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The six counts: name, the rows counted, the column holding the location's id. */
const COUNTS: [string, string, string][] = [
  ['circuit_count', 'circuits_circuittermination c', 'c.location_id'],
  ['device_count', 'dcim_device c', 'c.location_id'],
  ['prefix_count', 'ipam_prefixlocationassignment c', 'c.location_id'],
  ['rack_count', 'dcim_rack c', 'c.location_id'],
  ['virtual_machine_count', 'virtualization_virtualmachine c JOIN virtualization_cluster k ON k.id = c.cluster_id', 'k.location_id'],
  ['vlan_count', 'ipam_vlanlocationassignment c', 'c.location_id'],
];

/**
 * A statement reading locations `p` with everything their representation needs: the columns, the
 * timestamps as text, the counts, the tags' ids (by tag name) and the ancestors' names (from the
 * root down, through a recursive CTE from `anchor`, the rows `l` whose ancestry is read).
 */
function locationsStatement(mysql: boolean, o: { with?: string; anchor: string; counts: string[]; tags: string; from: string; end: string }): string {
  const ts = (c: string) => (mysql ? `DATE_FORMAT(p.${c}, '%Y-%m-%dT%H:%i:%s.%f')` : `to_char(p.${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`);
  return `WITH RECURSIVE ${o.with ?? ''}
  up (id, name, parent_id, lvl) AS (
    SELECT l.id, a.name, a.parent_id, 1 ${o.anchor}
    UNION ALL
    SELECT up.id, a.name, a.parent_id, up.lvl + 1 FROM up JOIN dcim_location a ON a.id = up.parent_id
  ),
  anc AS (SELECT id, ${agg(mysql, 'name', 'lvl DESC')} AS names FROM up GROUP BY id)
SELECT p.id, p.name, p.description, p.facility, p.asn, p.time_zone, p.physical_address, p.shipping_address,
  p.latitude, p.longitude, p.contact_name, p.contact_phone, p.contact_email, p.comments,
  p.location_type_id, p.parent_id, p.status_id, p.tenant_id, p._custom_field_data,
  ${ts('created')} AS created, ${ts('last_updated')} AS last_updated,
  ${o.counts.map((c, i) => `${c} AS ${COUNTS[i][0]}`).join(',\n  ')},
  ${o.tags} AS tags, anc.names AS ancestors
FROM ${o.from}
LEFT JOIN anc ON anc.id = p.id
${o.end}`;
}

const agg = (mysql: boolean, value: string, order: string) => (mysql ? `JSON_ARRAYAGG(${value} ORDER BY ${order})` : `json_agg(${value} ORDER BY ${order})`);
const TAGGED = `extras_taggeditem ti JOIN extras_tag t ON t.id = ti.tag_id`;

/**
 * A page of locations: the page's ids first (`page`), then the counts and tags grouped over
 * them, as netkeel's page statements do (per-row subqueries took twice as long for 1,000 rows).
 * The limit is written into the statement (one prepared statement per page size): PostgreSQL's
 * generic plan for `LIMIT $1` expects 200 rows whatever the limit and hashes the whole table (a
 * page of 50 took 2.5x as long).
 */
function pageStatement(mysql: boolean, limit: number): string {
  return locationsStatement(mysql, {
    with: `page AS (SELECT id FROM dcim_location ORDER BY _name, id LIMIT ${limit} OFFSET ${mysql ? '?' : '$1'}),`,
    anchor: 'FROM page JOIN dcim_location l ON l.id = page.id JOIN dcim_location a ON a.id = l.parent_id',
    counts: COUNTS.map((_, i) => `COALESCE(c${i}.n, 0)`),
    tags: 'tg.ids',
    from: [
      'page JOIN dcim_location p ON p.id = page.id',
      ...COUNTS.map(([, from, key], i) => `LEFT JOIN (SELECT ${key} AS k, COUNT(*) AS n FROM ${from} WHERE ${key} IN (SELECT id FROM page) GROUP BY ${key}) c${i} ON c${i}.k = p.id`),
      `LEFT JOIN (SELECT ti.object_id AS k, ${agg(mysql, 'ti.tag_id', 't.name')} AS ids FROM ${TAGGED}
  WHERE ti.object_id IN (SELECT id FROM page) AND ti.content_type = 'dcim.location' GROUP BY ti.object_id) tg ON tg.k = p.id`,
    ].join('\n'),
    end: 'ORDER BY p._name, p.id',
  });
}

/**
 * One location (its id given twice): the counts and tags as subqueries of its row (grouped
 * joins build temporary tables, which made a detail on MariaDB 1.5x as long).
 */
function detailStatement(mysql: boolean): string {
  const [first, second] = mysql ? ['?', '?'] : ['$1', '$2'];
  return locationsStatement(mysql, {
    anchor: `FROM dcim_location l JOIN dcim_location a ON a.id = l.parent_id WHERE l.id = ${first}`,
    counts: COUNTS.map(([, from, key]) => `(SELECT COUNT(*) FROM ${from} WHERE ${key} = p.id)`),
    tags: `(SELECT ${agg(mysql, 'ti.tag_id', 't.name')} FROM ${TAGGED} WHERE ti.object_id = p.id AND ti.content_type = 'dcim.location')`,
    from: 'dcim_location p',
    end: `WHERE p.id = ${second}`,
  });
}

/** The statements, with `?` placeholders on MySQL and `$n` on PostgreSQL; page statements by page size. */
function statements(mysql: boolean) {
  const pages = new Map<number, string>();
  return {
    count: 'SELECT COUNT(*) AS n FROM dcim_location',
    page(limit: number): string {
      let text = pages.get(limit);
      if (!text) pages.set(limit, (text = pageStatement(mysql, limit)));
      return text;
    },
    one: detailStatement(mysql),
  };
}

function openDb(url: string, size: number): { db: Db; sql: ReturnType<typeof statements>; close: () => Promise<void> } {
  if (url.startsWith('mysql:')) {
    const pool = createPool({ uri: url, connectionLimit: size, timezone: 'Z', supportBigNumbers: true, bigNumberStrings: false, charset: 'utf8mb4' });
    return {
      db: { query: async (_name, text, values) => (await pool.execute(text, values as any[]))[0] as Row[] },
      sql: statements(true),
      close: () => pool.end(),
    };
  }
  // bigint (counts, asn) as numbers, as netkeel reads them.
  const types = { getTypeParser: (oid: number, format?: any) => (oid === 20 ? (v: string) => Number(v) : pgTypes.getTypeParser(oid, format)) };
  const pool = new PgPool({ connectionString: url, max: size, types: types as any });
  return {
    db: { query: async (name, text, values) => (await pool.query({ name, text, values })).rows },
    sql: statements(false),
    close: () => pool.end(),
  };
}

/** Django's slugify after dashing dots, slashes and colons (what netkeel's natural_slug uses). */
function slugify(v: string): string {
  return v
    .replace(/[./:]/g, '-')
    .normalize('NFKD')
    .replace(/[^\x00-\x7f]/g, '')
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/[-\s]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}

/** `2026-11-27T16:43:33.801000` as the API renders it: the fraction only when not zero, `Z`. */
const timestamp = (s: string) => (s.endsWith('.000000') ? `${s.slice(0, 19)}Z` : `${s}Z`);

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

const ref = (base: string, objectType: string, slug: string, id: string | null) =>
  id === null ? null : { id, object_type: objectType, url: `${base}/api/${slug}/${id}/` };

/** A location row as netkeel represents it at depth 0, its keys in the same order. */
function location(r: Row, base: string): Row {
  const ancestors: string[] = r.ancestors ? json(r.ancestors) : [];
  const tags: string[] = r.tags ? json(r.tags) : [];
  const url = `${base}/api/dcim/locations/${r.id}/`;
  let slug = '';
  for (const name of [r.name, ...[...ancestors].reverse()]) slug += `${slugify(name)}_`;
  return {
    id: r.id,
    object_type: 'dcim.location',
    display: [...ancestors, r.name].join(' → '),
    url,
    natural_slug: slug + r.id.slice(0, 4),
    tree_depth: ancestors.length,
    time_zone: r.time_zone,
    circuit_count: r.circuit_count,
    device_count: r.device_count,
    prefix_count: r.prefix_count,
    rack_count: r.rack_count,
    virtual_machine_count: r.virtual_machine_count,
    vlan_count: r.vlan_count,
    name: r.name,
    description: r.description,
    facility: r.facility,
    asn: r.asn,
    physical_address: r.physical_address,
    shipping_address: r.shipping_address,
    latitude: r.latitude,
    longitude: r.longitude,
    contact_name: r.contact_name,
    contact_phone: r.contact_phone,
    contact_email: r.contact_email,
    comments: r.comments,
    location_type: ref(base, 'dcim.locationtype', 'dcim/location-types', r.location_type_id),
    parent: ref(base, 'dcim.location', 'dcim/locations', r.parent_id),
    status: ref(base, 'extras.status', 'extras/statuses', r.status_id),
    tenant: ref(base, 'tenancy.tenant', 'tenancy/tenants', r.tenant_id),
    created: timestamp(r.created),
    last_updated: timestamp(r.last_updated),
    tags: tags.map((id) => ref(base, 'extras.tag', 'extras/tags', id)),
    notes_url: `${url}notes/`,
    custom_fields: json(r._custom_field_data) ?? {},
  };
}

/** A list page's link: the other parameters kept, `limit` and `offset` set (null: left out), sorted by name. */
function pageLink(base: string, query: URLSearchParams, set: Record<string, string | null>): string {
  const pairs: [string, string][] = [];
  for (const [k, v] of query) if (!(k in set)) pairs.push([k, v]);
  for (const [k, v] of Object.entries(set)) if (v !== null) pairs.push([k, v]);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `${base}/api/dcim/locations/?${new URLSearchParams(pairs).toString()}`;
}

const digits = (v: string | null) => (v !== null && /^\s*\d+\s*$/.test(v) ? Number(v) : null);

async function handle(db: Db, sql: ReturnType<typeof statements>, token: string, req: http.IncomingMessage, self: string): Promise<[number, unknown]> {
  if (req.headers.authorization !== token) return [403, { detail: 'Invalid token' }];
  if (req.method !== 'GET') return [405, { detail: `Method "${req.method}" not allowed.` }];
  const u = new URL(req.url ?? '/', 'http://floor');
  const base = `http://${req.headers.host ?? self}`;
  if (u.pathname === '/api/dcim/locations/') {
    const asked = digits(u.searchParams.get('limit'));
    const limit = asked === null ? PAGINATE_COUNT : Math.min(asked || MAX_PAGE_SIZE, MAX_PAGE_SIZE);
    const offset = Math.min(digits(u.searchParams.get('offset')) ?? 0, Number.MAX_SAFE_INTEGER);
    const [[{ n }], rows] = await Promise.all([db.query('floor_count', sql.count, []), db.query(`floor_page_${limit}`, sql.page(limit), [String(offset)])]);
    const count = Number(n);
    return [
      200,
      {
        count,
        next: offset + limit < count ? pageLink(base, u.searchParams, { limit: String(limit), offset: String(offset + limit) }) : null,
        previous: offset > 0 ? pageLink(base, u.searchParams, { limit: String(limit), offset: offset - limit > 0 ? String(offset - limit) : null }) : null,
        results: rows.map((r) => location(r, base)),
      },
    ];
  }
  const m = /^\/api\/dcim\/locations\/([^/]+)\/$/.exec(u.pathname);
  if (m && UUID.test(m[1])) {
    const [row] = await db.query('floor_one', sql.one, [m[1].toLowerCase(), m[1].toLowerCase()]);
    return row ? [200, location(row, base)] : [404, { detail: 'No Location matches the given query.' }];
  }
  return [404, { detail: 'Not found.' }];
}

function main(): void {
  const url = process.env.DATABASE_URL ?? '';
  if (!/^(postgres(ql)?|mysql):/.test(url)) throw new Error('DATABASE_URL must be a postgres:// or mysql:// URL');
  const port = Number(process.env.PORT ?? 18600);
  const host = process.env.HOST ?? '127.0.0.1';
  const token = `Token ${process.env.FLOOR_TOKEN ?? ''}`;
  const { db, sql, close } = openDb(url, Number(process.env.FLOOR_POOL_SIZE ?? 10));
  const server = http.createServer((req, res) => {
    handle(db, sql, token, req, `${host}:${port}`).then(
      ([status, value]) => {
        const body = JSON.stringify(value);
        res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      },
      (err: Error) => {
        process.stderr.write(`${err.stack ?? err}\n`);
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ detail: 'Server error' }));
      },
    );
    req.resume();
  });
  server.keepAliveTimeout = 5000;
  server.listen(port, host, () => process.stdout.write(`floor listening on ${host}:${port}\n`));
  const stop = () => {
    server.close(() => void close().then(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
