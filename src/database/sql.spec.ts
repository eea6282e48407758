import { JsonText, mysqlDialect, postgresDialect } from './dialect';
import { ident, RenderedSql, sql, valueRows } from './sql';

describe('RenderedSql', () => {
  it('renders as the text and values it was made with, on its own dialect only, and never inside another fragment', () => {
    const { text, params } = postgresDialect.render(sql`SELECT * FROM ${ident('t')} WHERE ${ident('t', 'id')} = ${'a'} AND ${ident('t', 'n')} = ${2}`);
    expect(text).toBe('SELECT * FROM "t" WHERE "t"."id" = $1 AND "t"."n" = $2');
    const again = new RenderedSql('postgres', text, ['b', 3]);
    expect(postgresDialect.render(again)).toEqual({ text, params: ['b', 3] });
    expect(() => mysqlDialect.render(again)).toThrow(/rendered for postgres/);
    expect(() => postgresDialect.render(sql`SELECT (${again})`)).toThrow(/not a fragment/);
  });
});

describe('valueRows', () => {
  it('renders rows of values as parameters in order, between the text around them (as literals on MySQL)', () => {
    const insert = sql`INSERT INTO ${ident('t')} (${ident('a')}, ${ident('b')}) VALUES ${valueRows([['x', 1], ['y', null]])} RETURNING ${ident('a')}`;
    expect(postgresDialect.render(insert)).toEqual({ text: 'INSERT INTO "t" ("a", "b") VALUES ($1, $2), ($3, $4) RETURNING "a"', params: ['x', 1, 'y', null] });
    expect(mysqlDialect.render(sql`WHERE ${ident('c')} = ${0} VALUES ${valueRows([['z']])}`)).toEqual({ text: "WHERE `c` = ? VALUES ('z')", params: [0], inlined: true });
  });
  it('writes rows as literals on MySQL, marked inlined: quotes doubled, backslashes escaped, times in UTC, JSON text as a string, bytes as hex', () => {
    const rows = valueRows([
      ["it's \\ a\n\r\0\x1a \"b\" é 😀", 1, null, true, new Date('2026-12-05T00:14:40.926Z')],
      [new JsonText('{"a":"x\\"y","b":[1]}'), 2n, undefined, false, Buffer.from([0, 255])],
    ]);
    expect(mysqlDialect.render(sql`INSERT INTO ${ident('t')} VALUES ${rows} ON x = ${'y'}`)).toEqual({
      text: "INSERT INTO `t` VALUES ('it''s \\\\ a\\n\\r\\0\\Z \"b\" é 😀', 1, NULL, true, '2026-12-05 00:14:40.926'), ('{\"a\":\"x\\\\\"y\",\"b\":[1]}', 2, NULL, false, X'00ff') ON x = ?",
      params: ['y'],
      inlined: true,
    });
    expect(() => mysqlDialect.render(sql`VALUES ${valueRows([[{ a: 1 }]])}`)).toThrow(/no SQL literal/);
    expect(mysqlDialect.render(sql`VALUES ${valueRows([[new Date(NaN)]])}`).text).toBe('VALUES (NULL)');
  });
});

describe('identifiers', () => {
  it('are quoted by each dialect, its quote character doubled, the same every time', () => {
    for (let i = 0; i < 2; i++) {
      expect(postgresDialect.render(sql`SELECT ${ident('a"b', 'c`d')} FROM ${ident('t')}`).text).toBe('SELECT "a""b"."c`d" FROM "t"');
      expect(mysqlDialect.render(sql`SELECT ${ident('a"b', 'c`d')} FROM ${ident('t')}`).text).toBe('SELECT `a"b`.`c``d` FROM `t`');
    }
  });
});
