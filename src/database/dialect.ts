import { RenderedSql, Sql, SqlNode, sql, raw, ident, join, param, valueRows } from './sql';
import type { ColumnType } from './column-values';
import { mysqlLiteral } from './mysql-literals';
import { PG_TYPES, pgInsertRows } from './pg-arrays';

export { JsonText, type ColumnType } from './column-values';

export type DialectName = 'postgres' | 'mysql';

/**
 * Everything that differs between PostgreSQL (and PGlite) and MySQL/MariaDB. The rest of the
 * code builds Sql fragments through this interface and never asks which database it is on.
 */
export interface Dialect {
  readonly name: DialectName;
  /**
   * Ids read from uuid columns are always in the canonical form (PostgreSQL's uuid type); false
   * where they are text columns (MySQL's char(36)), which hold whatever was written to them.
   */
  readonly typedUuids: boolean;
  render(fragment: Sql): Rendered;
  /** Case-insensitive LIKE with a pattern that is already escaped. */
  ilike(expr: Sql, pattern: string): Sql;
  /** Case-sensitive LIKE. */
  like(expr: Sql, pattern: string): Sql;
  regex(expr: Sql, pattern: string, caseInsensitive: boolean): Sql;
  lower(expr: Sql | string): Sql;
  /** The text value at `key` of a JSON column, or NULL. */
  jsonText(expr: Sql, key: string): Sql;
  /** The raw JSON value at `key` (for type-aware comparisons and null checks). */
  jsonValue(expr: Sql, key: string): Sql;
  /** The number at `key`, or NULL when the value there is not a number. */
  jsonNumber(expr: Sql, key: string): Sql;
  /** True when the JSON array at `key` contains the (string) value. */
  jsonArrayContains(expr: Sql, key: string, value: unknown): Sql;
  /** True when the JSON column is an array containing the (string) value. */
  jsonArrayHas(expr: Sql, value: unknown): Sql;
  /** True when the JSON object column has `key`. */
  jsonHasKey(expr: Sql, key: string): Sql;
  /** Removes `key` from a JSON object column (custom field deletion). */
  jsonRemoveKey(expr: Sql, key: string): Sql;
  /** The JSON object column with `key` set to a (JSON-encodable) value. */
  jsonSet(expr: Sql, key: string, value: unknown): Sql;
  /** A parameter with an explicit type, where the dialect cannot infer it (CASE, VALUES). */
  typedParam(value: unknown, type: ColumnType): Sql;
  /** Convert a JS value into what the driver binds for a column of this type. */
  toDb(value: unknown, type: ColumnType): unknown;
  /** Text cast for string lookups on non-text expressions. */
  castText(expr: Sql): Sql;
  /** A text's UTF-8 bytes as hexadecimal text (a name inside a comma-joined list, whatever it holds). */
  hexText(expr: Sql): Sql;
  /** Aggregate of a subquery's values as one comma-joined text, in an order. */
  listAgg(expr: Sql, order: Sql): Sql;
  /**
   * Whether each grouped subquery over a page's ids and each recursive CTE costs the database a
   * temporary table (MySQL/MariaDB: see there). Then a list page's statement lists no ids and no
   * ancestry (each has a statement of its own), and a statement of one object (ExtrasShape `row`)
   * lists its ids in subqueries of its row and walks its ancestry by a chain of joins.
   */
  /**
   * A deep page's rows: those of `table` (a table with its alias `o`) whose id `ids` selects (one
   * column `id`, with the page's order, limit and offset), so that the rows the offset skips are
   * walked as ids (an index-only scan where an index holds the order and the id) and only the
   * page's rows are read whole.
   */
  pageRows(table: Sql, ids: Sql): Sql;
  readonly tempTables: boolean;
  /**
   * What follows a table's name to have the statement read it through the index `name`: MySQL's
   * FORCE INDEX (nothing on PostgreSQL, whose planner costs ranges from its statistics). For a
   * statement whose condition ORs hundreds of ranges: MariaDB otherwise estimates each range on
   * every index that might serve it, by walking the index (an UPDATE re-parenting under 500 new
   * prefixes: 100 ms of "statistics", 8-11 ms with the index named).
   */
  forceIndex(name: string): Sql;
  /**
   * What follows a table's name to have a statement read it in the order of the index `name`
   * (MySQL's FORCE INDEX FOR ORDER BY; nothing on PostgreSQL): see `orderIndexHint`.
   */
  forceOrderIndex(name: string): Sql;
  /** Row locking clause to append to a SELECT (allocation, uniqueness races). */
  readonly forUpdate: string;
  /** Shared row lock clause for a SELECT: others may read and share-lock, nobody may change the rows. */
  readonly lockShared: string;
  /** The clause after `INSERT ... VALUES ...` that skips rows whose primary or unique `key` exists. */
  onConflictIgnore(key: string[]): Sql;
  /**
   * What follows `INSERT INTO <table>` to insert `rows` (values as `toDb` gives them, in the
   * order of `columns`, each column's storage type in `types`; a JSON column's may be JsonText):
   * `(<columns>) VALUES (...), ...`, or on PostgreSQL `(<columns>) SELECT * FROM unnest(<one
   * array per column>)`, see there.
   */
  insertRows(columns: readonly string[], types: readonly ColumnType[], rows: readonly (readonly unknown[])[]): Sql;
  /**
   * Statements that take (waiting for it) and give back a lock of the current database, held by
   * the session rather than a transaction: instances starting together apply the migrations one
   * after another.
   */
  readonly migrationLock: { acquire: string; release: string };
  /** Classifies a driver error. */
  errorKind(err: unknown): 'unique' | 'foreign_key' | 'timeout' | 'regex' | 'invalid_value' | 'deadlock' | null;
}

/**
 * A statement's text and the values of its placeholders; `inlined` when it also holds values
 * written as literals (MySQL's multi-row INSERTs: a text not to prepare or keep, see mysql-literals.ts).
 */
export interface Rendered {
  text: string;
  params: unknown[];
  inlined?: true;
}

/**
 * Renders a fragment with the dialect's quoting and placeholders. With `arrays`, a list of
 * plain values is one array parameter (`= ANY($1)`): PostgreSQL parses and binds a thousand
 * separate parameters in tens of milliseconds, one array in microseconds.
 */
function renderWith(dialect: DialectName, fragment: Sql, quote: (id: string) => string, placeholder: (i: number) => string, arrays: boolean, literal?: (v: unknown) => string): Rendered {
  if (fragment instanceof RenderedSql) {
    if (fragment.dialect !== dialect) throw new Error(`a statement rendered for ${fragment.dialect} run on ${dialect}`);
    return { text: fragment.text, params: [...fragment.params] };
  }
  let text = '';
  let inlined = false;
  const params: unknown[] = [];
  for (const n of fragment.nodes as SqlNode[]) {
    if (n.t === 'text') text += n.v;
    else if (n.t === 'rendered') throw new Error('a rendered statement is not a fragment of another');
    else if (n.t === 'ident') {
      text += quote(n.v[0]);
      for (let i = 1; i < n.v.length; i++) text += '.' + quote(n.v[i]);
    }
    else if (n.t === 'in') {
      if (arrays) {
        params.push(n.v);
        text += ` = ANY(${placeholder(params.length)})`;
      } else {
        text += ' IN (';
        n.v.forEach((v, i) => {
          params.push(v);
          text += (i ? ', ' : '') + placeholder(params.length);
        });
        text += ')';
      }
    } else if (n.t === 'values') {
      if (literal) inlined = true;
      n.v.forEach((row, r) => {
        text += r ? ', (' : '(';
        row.forEach((v, i) => {
          if (i) text += ', ';
          if (literal) text += literal(v);
          else {
            params.push(v);
            text += placeholder(params.length);
          }
        });
        text += ')';
      });
    } else {
      params.push(n.v);
      text += placeholder(params.length);
    }
  }
  return inlined ? { text, params, inlined } : { text, params };
}

/**
 * A dialect's identifier quoting, each name quoted once: a statement names the same few hundred
 * columns and aliases request after request (quoting them was ~2 % of a small list's CPU). Names
 * are the models' own; the cache is emptied should it ever grow past 10,000.
 */
function quoting(quote: (id: string) => string): (id: string) => string {
  const quoted = new Map<string, string>();
  return (id) => {
    let q = quoted.get(id);
    if (q === undefined) {
      if (quoted.size >= 10_000) quoted.clear();
      quoted.set(id, (q = quote(id)));
    }
    return q;
  };
}
const pgQuote = quoting((id) => `"${id.replace(/"/g, '""')}"`);
const mysqlQuote = quoting((id) => '`' + id.replace(/`/g, '``') + '`');

function driverCode(err: unknown): { code?: string; errno?: number; message: string } {
  const e = err as { driverError?: unknown; code?: string; errno?: number; message?: string };
  const d = (e?.driverError ?? e) as { code?: string; errno?: number; message?: string };
  return { code: d?.code ?? e?.code, errno: d?.errno ?? e?.errno, message: String(d?.message ?? e?.message ?? '') };
}

/** Text in PostgreSQL's ICU root collation (Unicode case rules; PGlite and server builds have it). */
const icu = (e: Sql | string): Sql => sql`(CAST(${e} AS text) COLLATE "und-x-icu")`;

export const postgresDialect: Dialect = {
  name: 'postgres',
  typedUuids: true,
  render: (f) => renderWith('postgres', f, pgQuote, (i) => `$${i}`, true),
  // Text columns are COLLATE "C" (ordering identical to MariaDB's utf8mb4_bin), whose case
  // folding is ASCII only; case-insensitive forms fold through ICU's root locale instead, so
  // "École" matches "école" here as it does on MariaDB.
  ilike: (e, p) => sql`LOWER(${icu(e)}) LIKE LOWER(${icu(p)})`,
  like: (e, p) => sql`${e} LIKE ${p}`,
  regex: (e, p, ci) => (ci ? sql`${icu(e)} ~* ${p}` : sql`${e} ~ ${p}`),
  lower: (e) => sql`LOWER(${icu(e)})`,
  jsonText: (e, k) => sql`(${e} ->> ${k}::text)`,
  jsonValue: (e, k) => sql`(${e} -> ${k}::text)`,
  jsonNumber: (e, k) => sql`(CASE WHEN jsonb_typeof(${e} -> ${k}::text) = 'number' THEN (${e} ->> ${k}::text)::numeric END)`,
  jsonArrayContains: (e, k, v) => sql`((${e} -> ${k}::text) @> ${JSON.stringify([v])}::jsonb)`,
  jsonArrayHas: (e, v) => sql`(jsonb_typeof(${e}) = 'array' AND ${e} @> ${JSON.stringify([v])}::jsonb)`,
  jsonHasKey: (e, k) => sql`(${e} ? ${k}::text)`,
  jsonRemoveKey: (e, k) => sql`(${e} - ${k}::text)`,
  jsonSet: (e, k, v) => sql`(${e} || jsonb_build_object(${k}::text, ${JSON.stringify(v)}::jsonb))`,
  typedParam: (v, t) => sql`CAST(${v} AS ${raw(PG_TYPES[t])})`,
  toDb: (v, t) => (t === 'json' && v !== null && v !== undefined ? JSON.stringify(v) : v),
  castText: (e) => sql`CAST(${e} AS text)`,
  hexText: (e) => sql`encode(convert_to(${e}, 'UTF8'), 'hex')`,
  listAgg: (e, order) => sql`string_agg(CAST(${e} AS text), ',' ORDER BY ${order})`,
  // As an array, the ids are looked up by primary key: joined, PostgreSQL hashed the whole table.
  pageRows: (table, ids) => sql`${table} WHERE o.${ident('id')} = ANY(ARRAY(${ids}))`,
  tempTables: false,
  forceIndex: () => sql``,
  forceOrderIndex: () => sql``,
  forUpdate: ' FOR UPDATE',
  lockShared: ' FOR SHARE',
  onConflictIgnore: (key) => sql` ON CONFLICT (${join(key.map((k) => ident(k)))}) DO NOTHING`,
  // One array parameter per column, not one parameter per value: PostgreSQL parses and plans a
  // VALUES list of 1,000 rows of 20 parameters in tens of milliseconds each time (an INSERT of
  // 1,000 change records: ~100 ms parsing and binding, ~30 ms executing), and an array in
  // microseconds. The arrays go as literal text (the same on node-postgres and PGlite), typed by
  // their casts; each is assigned to its column as a value of the column's own type would be.
  insertRows: pgInsertRows,
  // Advisory locks are the database's own: other databases of the server do not wait.
  migrationLock: { acquire: `SELECT pg_advisory_lock(hashtext('netkeel_migrations'))`, release: `SELECT pg_advisory_unlock(hashtext('netkeel_migrations'))` },
  errorKind(err) {
    const { code } = driverCode(err);
    if (code === '23505') return 'unique';
    if (code === '23503') return 'foreign_key';
    if (code === '57014') return 'timeout';
    if (code === '2201B') return 'regex';
    if (code === '40P01' || code === '40001') return 'deadlock';
    if (code && /^22/.test(code)) return 'invalid_value';
    return null;
  },
};

const MY_TYPES: Record<ColumnType, string> = {
  uuid: 'CHAR(36)', string: 'CHAR', text: 'CHAR', integer: 'SIGNED', bigint: 'SIGNED', decimal: 'DECIMAL(30,10)',
  boolean: 'SIGNED', date: 'DATE', datetime: 'DATETIME(6)', json: 'CHAR', bytes: 'BINARY', blob: 'BINARY',
};

export const mysqlDialect: Dialect = {
  name: 'mysql',
  typedUuids: false,
  render: (f) => renderWith('mysql', f, mysqlQuote, () => '?', false, mysqlLiteral),
  // Text columns use a binary collation (case-sensitive like PostgreSQL), so the
  // case-insensitive forms lower both sides explicitly.
  ilike: (e, p) => sql`LOWER(${e}) LIKE LOWER(${p})`,
  like: (e, p) => sql`${e} LIKE ${p}`,
  regex: (e, p, ci) => sql`${e} REGEXP ${(ci ? '(?i)' : '(?-i)') + p}`,
  lower: (e) => sql`LOWER(${e})`,
  // JSON null must read as SQL NULL (JSON_UNQUOTE alone turns it into the text 'null').
  jsonText: (e, k) =>
    sql`(CASE WHEN JSON_TYPE(JSON_EXTRACT(${e}, ${'$.' + JSON.stringify(k)})) = 'NULL' THEN NULL ELSE JSON_UNQUOTE(JSON_EXTRACT(${e}, ${'$.' + JSON.stringify(k)})) END)`,
  jsonValue: (e, k) => sql`JSON_EXTRACT(${e}, ${'$.' + JSON.stringify(k)})`,
  jsonNumber: (e, k) =>
    sql`(CASE WHEN JSON_TYPE(JSON_EXTRACT(${e}, ${'$.' + JSON.stringify(k)})) IN ('INTEGER', 'DOUBLE', 'DECIMAL', 'UNSIGNED INTEGER') THEN CAST(JSON_UNQUOTE(JSON_EXTRACT(${e}, ${'$.' + JSON.stringify(k)})) AS DECIMAL(30,10)) END)`,
  jsonArrayContains: (e, k, v) => sql`JSON_CONTAINS(JSON_EXTRACT(${e}, ${'$.' + JSON.stringify(k)}), ${JSON.stringify(v)})`,
  jsonArrayHas: (e, v) => sql`(JSON_TYPE(${e}) = 'ARRAY' AND JSON_CONTAINS(${e}, ${JSON.stringify(v)}))`,
  jsonHasKey: (e, k) => sql`JSON_CONTAINS_PATH(${e}, 'one', ${'$.' + JSON.stringify(k)})`,
  jsonRemoveKey: (e, k) => sql`JSON_REMOVE(${e}, ${'$.' + JSON.stringify(k)})`,
  jsonSet: (e, k, v) => sql`JSON_SET(${e}, ${'$.' + JSON.stringify(k)}, JSON_EXTRACT(${JSON.stringify(v)}, '$'))`,
  typedParam: (v, t) => (t === 'string' || t === 'text' || t === 'uuid' || t === 'json' ? param(v) : sql`CAST(${v} AS ${raw(MY_TYPES[t])})`),
  toDb: (v, t) => {
    if (v === null || v === undefined) return v;
    if (t === 'json') return JSON.stringify(v);
    if (t === 'boolean') return v ? 1 : 0;
    return v;
  },
  castText: (e) => sql`CAST(${e} AS CHAR)`,
  // The columns are utf8mb4: HEX gives their UTF-8 bytes.
  hexText: (e) => sql`HEX(${e})`,
  // Every pooled session raises group_concat_max_len (data-source.factory.ts: MySQL 8's default
  // of 1,024 bytes would cut a list short, with a mere warning).
  listAgg: (e, order) => sql`GROUP_CONCAT(CAST(${e} AS CHAR) ORDER BY ${order} SEPARATOR ',')`,
  // MariaDB builds each grouped subquery over a page as a temporary table: a page of 1,000
  // locations took 50 ms with its tags and ancestry joined in, 18 ms without, and the tags' own
  // statement 1.4 ms. A detail's recursive ancestry beside its row cost it twice the database's
  // CPU of the row, tags and ancestry in three statements; a subquery of one row is cheap.
  tempTables: true,
  // MySQL refuses LIMIT in an IN subquery; joined, the page's ids are a derived table.
  pageRows: (table, ids) => sql`${table} JOIN (${ids}) q ON q.${ident('id')} = o.${ident('id')}`,
  forceIndex: (name) => sql` FORCE INDEX (${ident(name)})`,
  forceOrderIndex: (name) => sql` FORCE INDEX FOR ORDER BY (${ident(name)})`,
  forUpdate: ' FOR UPDATE',
  lockShared: ' LOCK IN SHARE MODE',
  // Not INSERT IGNORE, which would also turn other errors (a bad value) into warnings.
  onConflictIgnore: (key) => sql` ON DUPLICATE KEY UPDATE ${ident(key[0])} = ${ident(key[0])}`,
  // The rows are written into the text as literals (mysql-literals.ts), a JSON column's JsonText
  // as a string literal.
  insertRows: (columns, _types, rows) => sql`(${join(columns.map((c) => ident(c)))}) VALUES ${valueRows(rows)}`,
  // Named locks are the server's: the name carries the database (at most 64 characters). A day's wait at most.
  migrationLock: { acquire: `SELECT GET_LOCK(CONCAT('netkeel_migrations:', MD5(DATABASE())), 86400)`, release: `SELECT RELEASE_LOCK(CONCAT('netkeel_migrations:', MD5(DATABASE())))` },
  errorKind(err) {
    const { code, errno } = driverCode(err);
    if (code === 'ER_DUP_ENTRY' || errno === 1062) return 'unique';
    if (errno === 1451 || errno === 1452 || code === 'ER_ROW_IS_REFERENCED_2' || code === 'ER_NO_REFERENCED_ROW_2') return 'foreign_key';
    if (errno === 1969 || errno === 3024 || code === 'ER_STATEMENT_TIMEOUT' || code === 'ER_QUERY_TIMEOUT') return 'timeout';
    if (errno === 1139 || errno === 3685 || errno === 3692 || errno === 3699 || code === 'ER_REGEXP_ERROR') return 'regex';
    if (errno === 1213 || errno === 1205) return 'deadlock';
    // 4025: a CHECK constraint (a JSON column's validity) refused the value.
    if (errno === 1292 || errno === 1366 || errno === 1264 || errno === 1406 || errno === 4025) return 'invalid_value';
    return null;
  },
};

export { ident, raw };
