import { startApp, TestApp } from '../../src/core/testing/harness';
import { testDatabases } from '../../src/database/test-servers';
import { JsonText, type ColumnType } from '../../src/database/dialect';
import type { Executor } from '../../src/database/db';
import { MYSQL_SESSION } from '../../src/database/data-source.factory';
import { ident, inList, raw, sql } from '../../src/database/sql';

/**
 * A multi-row INSERT (Dialect.insertRows: on PostgreSQL and PGlite one array literal per column,
 * elsewhere a VALUES list) stores every value of every storage type as it was given: text that
 * an array literal must quote or escape (or MySQL's string literal: quotes, backslashes, control
 * characters), NULL beside the text "NULL", empty and non-ASCII text,
 * times, JSON, bytes; and JSON text made by netkeel (JsonText: on PostgreSQL one jsonb document
 * per column), SQL NULL beside JSON's null. And a list of values a statement binds (on PostgreSQL
 * one array parameter, its literal written by netkeel where no element needs quoting).
 */
describe.each(testDatabases())('multi-row INSERT of every storage type [%s]', (kind) => {
  let t: TestApp;
  const T = 'nk_insert_rows_spec';
  const columns: [string, ColumnType, string, string][] = [
    ['id', 'uuid', 'uuid', 'char(36)'],
    ['s', 'string', 'varchar(60)', 'varchar(60)'],
    ['x', 'text', 'text', 'longtext'],
    ['i', 'integer', 'integer', 'int'],
    ['b', 'bigint', 'bigint', 'bigint'],
    ['d', 'decimal', 'numeric(12,4)', 'decimal(12,4)'],
    ['f', 'boolean', 'boolean', 'tinyint(1)'],
    ['day', 'date', 'date', 'date'],
    ['at', 'datetime', 'timestamptz', 'datetime(6)'],
    ['j', 'json', 'jsonb', 'json'],
    ['by', 'bytes', 'bytea', 'varbinary(16)'],
    ['jt', 'json', 'jsonb', 'json'],
  ];
  /** What column jt holds as JSON (undefined: SQL NULL). */
  const document = (n: number, s: string): unknown => (n % 3 === 0 ? undefined : n === 1 ? null : n % 2 ? [s, n] : { k: s, n, deep: [[{ q: '"\\' }]] });
  const texts = ['a"b\\c{d},e} NULL', 'NULL', '', 'ünï ☃ 𝄞', ' spaced ', '\\', '"', '{}', "it's ? ??", 'tab\there\r\n\u001a\'\'\\\'\b'];
  const rows = texts.map((s, n) => ({
    id: `00000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`,
    s,
    x: n % 2 ? null : `${s}\n${s}`,
    i: n % 3 ? -n : null,
    b: 9007199254740991 - n,
    d: n % 2 ? null : `${n}.5${n}`,
    f: n % 2 === 0,
    day: `2026-${String(1 + n).padStart(2, '0')}-1${n}`,
    at: new Date(Date.UTC(2026, n, 1, 2, 3, 4, 5 * n)),
    j: n % 3 ? { k: s, list: [n, null, true], nested: { q: '"\\' } } : null,
    by: n % 2 ? Buffer.from([0, n, 255, 92, 34]) : null,
    jt: document(n, s) === undefined ? null : new JsonText(JSON.stringify(document(n, s))),
  }));

  beforeAll(async () => {
    t = await startApp(kind);
    const d = t.db.dialect;
    const ddl = columns.map(([c, , pg, my]) => (d.name === 'postgres' ? `"${c}" ${pg}` : `\`${c}\` ${my}`)).join(', ');
    await t.db.execute(sql`CREATE TABLE ${ident(T)} (${raw(ddl)})`);
  });
  afterAll(async () => {
    await t?.db.execute(sql`DROP TABLE ${ident(T)}`).catch(() => undefined);
    await t?.close();
  });

  const d = () => t.db.dialect;
  const types = columns.map((c) => c[1]);
  type R = (typeof rows)[number];
  /** The INSERT of `list`: JsonText goes as it is (toDb makes JSON of a value, which JsonText already is). */
  const insertOf = (list: R[]) =>
    sql`INSERT INTO ${ident(T)} ${d().insertRows(
      columns.map((c) => c[0]),
      types,
      list.map((r) => columns.map(([c, type]) => ((v) => (v instanceof JsonText ? v : d().toDb(v, type)))((r as Record<string, unknown>)[c]))),
    )}`;
  /** What the table holds, as comparable values, in insertion order (`n`: the index of `s` in texts). */
  const stored = async () => {
    const read = await t.db.query(sql`SELECT *, CASE WHEN ${ident('jt')} IS NULL THEN 1 ELSE 0 END AS ${ident('jt_null')} FROM ${ident(T)} ORDER BY ${ident('id')}, ${ident('i')}`);
    const day = (v: unknown) => (v instanceof Date ? `${v.getFullYear()}-${String(v.getMonth() + 1).padStart(2, '0')}-${String(v.getDate()).padStart(2, '0')}` : v);
    return read.map((r) => ({
      ...r,
      b: Number(r.b),
      d: r.d === null ? null : Number(r.d),
      f: Boolean(r.f),
      day: day(r.day),
      at: new Date(r.at as string).toISOString(),
      j: typeof r.j === 'string' ? JSON.parse(r.j) : r.j,
      by: r.by === null ? null : Buffer.from(r.by as Buffer).toString('hex'),
      jt: Number(r.jt_null) ? undefined : typeof r.jt === 'string' ? JSON.parse(r.jt) : r.jt,
      jt_null: undefined,
    }));
  };
  const expected = (list: R[]) =>
    list.map((r) => ({
      ...r,
      d: r.d === null ? null : Number(r.d),
      at: r.at.toISOString(),
      by: r.by === null ? null : r.by.toString('hex'),
      jt: r.jt === null ? undefined : JSON.parse(r.jt.text),
      jt_null: undefined,
    }));
  beforeEach(() => t.db.execute(sql`DELETE FROM ${ident(T)}`));

  it('reads back what it wrote', async () => {
    const insert = insertOf(rows);
    // PostgreSQL: one parameter per column, however many rows; MySQL and MariaDB: none, the
    // rows written into the text as literals.
    expect(d().render(insert).params).toHaveLength(d().name === 'postgres' ? columns.length : 0);
    await t.db.execute(insert);
    expect(await stored()).toEqual(expected(rows));
    expect((await stored()).map((r) => r.jt)).toEqual(texts.map((s, n) => document(n, s)));
  });

  it('stores a column of one value in every row, or of nulls, in every row', async () => {
    // Every column but the id holds row 5's value in every row ("spaced" text, JSON's null
    // beside SQL NULL in j/jt, bytes), then row 4's (NULLs where row 5 has values).
    for (const from of [5, 4, 2]) {
      await t.db.execute(sql`DELETE FROM ${ident(T)}`);
      const same = rows.map((r) => ({ ...rows[from], id: r.id, at: new Date(rows[from].at.getTime()), jt: rows[from].jt && new JsonText(rows[from].jt!.text) }));
      const insert = insertOf(same);
      // PostgreSQL: the ids' array, every other column's value once (a null is no parameter).
      const valued = columns.filter(([c]) => c !== 'id' && (same[0] as Record<string, unknown>)[c] !== null);
      if (d().name === 'postgres') expect(d().render(insert).params).toHaveLength(1 + valued.length);
      await t.db.execute(insert);
      expect(await stored()).toEqual(expected(same));
    }
  });

  it('finds rows by a list of values bound as one array (PostgreSQL) or IN (...), quoted or not', async () => {
    const safe = ['plain', 'x.y:z+1-2_3', rows[4].id];
    const needing = ['NULL', 'null', 'a"b\\c{d},e} NULL', ' spaced ', '', '{}', "it's ? ??"];
    await t.db.execute(insertOf(rows));
    await t.db.execute(insertOf(['plain', 'x.y:z+1-2_3', 'null'].map((s, n) => ({ ...rows[0], id: `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`, s }))));
    const found = async (values: string[]) => (await t.db.query<{ s: string }>(sql`SELECT ${ident('s')} FROM ${ident(T)} WHERE ${inList(ident('s'), values)}`)).map((r) => r.s).sort();
    const byId = async (values: string[]) => (await t.db.query<{ id: string }>(sql`SELECT ${ident('id')} FROM ${ident(T)} WHERE ${inList(ident('id'), values)}`)).map((r) => r.id);
    expect(await found(safe)).toEqual(['plain', 'x.y:z+1-2_3']);
    expect(await byId([rows[4].id, rows[7].id])).toEqual([rows[4].id, rows[7].id]);
    expect(await found([...safe, ...needing])).toEqual(['NULL', 'null', texts[0], ' spaced ', '', '{}', "it's ? ??", 'plain', 'x.y:z+1-2_3'].sort());
    expect(await found(['null'])).toEqual(['null']);
  });

  (kind === 'mysql' ? it : it.skip)('writes MySQL literals that hold under any sql_mode: a quote never ends one early, and each session drops NO_BACKSLASH_ESCAPES', async () => {
    const hostile = ["x', 'injected') -- ", "\\'", "''\\"];
    const values = hostile.map((s, n) => ({ ...rows[0], id: `00000000-0000-4000-8000-0000000002${String(n).padStart(2, '0')}`, s, x: s }));
    const read = async (tx: Executor) => (await tx.query<{ s: string; x: string }>(sql`SELECT ${ident('s')}, ${ident('x')} FROM ${ident(T)} ORDER BY ${ident('id')}`)).map((r) => [r.s, r.x]);
    await t.db.transaction(async (tx) => {
      // A server that sets NO_BACKSLASH_ESCAPES: quotes still doubled, never ended early (a backslash is then itself).
      await tx.execute(sql`SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_BACKSLASH_ESCAPES')`);
      await tx.execute(sql`INSERT INTO ${ident(T)} ${d().insertRows(['id', 's', 'x'], ['uuid', 'string', 'text'], [[values[0].id, hostile[0], hostile[0]]])}`);
      expect(await read(tx)).toEqual([[hostile[0], hostile[0]]]);
      // What every netkeel session runs first takes the mode back off: backslashes are escapes again.
      for (const stmt of MYSQL_SESSION) await tx.execute(raw(stmt));
      await tx.execute(sql`DELETE FROM ${ident(T)}`);
      await tx.execute(sql`INSERT INTO ${ident(T)} ${d().insertRows(['id', 's', 'x'], ['uuid', 'string', 'text'], values.map((v) => [v.id, v.s, v.x]))}`);
      expect(await read(tx)).toEqual(hostile.map((s) => [s, s]));
    });
  });

  it('stores one row, and rows that differ in no column', async () => {
    await t.db.execute(insertOf([rows[0]]));
    expect(await stored()).toEqual(expected([rows[0]]));
    await t.db.execute(sql`DELETE FROM ${ident(T)}`);
    const twins = [rows[3], rows[3], rows[3]];
    await t.db.execute(insertOf(twins));
    expect(await stored()).toEqual(expected(twins));
  });
});
