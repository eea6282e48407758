import { mysqlDialect, postgresDialect } from './dialect';
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
  it('renders rows of values as parameters in order, between the text around them', () => {
    const insert = sql`INSERT INTO ${ident('t')} (${ident('a')}, ${ident('b')}) VALUES ${valueRows([['x', 1], ['y', null]])} RETURNING ${ident('a')}`;
    expect(postgresDialect.render(insert)).toEqual({ text: 'INSERT INTO "t" ("a", "b") VALUES ($1, $2), ($3, $4) RETURNING "a"', params: ['x', 1, 'y', null] });
    expect(mysqlDialect.render(sql`WHERE ${ident('c')} = ${0} VALUES ${valueRows([['z']])}`)).toEqual({ text: 'WHERE `c` = ? VALUES (?)', params: [0, 'z'] });
  });
  it("writes a column's wrapping around each of its placeholders", () => {
    const rows = valueRows([['x', 'j1'], ['y', null]], [null, ['CONVERT(', ' USING utf8mb4)']]);
    expect(mysqlDialect.render(sql`VALUES ${rows}`)).toEqual({ text: 'VALUES (?, CONVERT(? USING utf8mb4)), (?, CONVERT(? USING utf8mb4))', params: ['x', 'j1', 'y', null] });
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
