import { DataSource, QueryFailedError } from 'typeorm';
import { freshDatabase, testDatabases } from './test-servers';
import { Db } from './db';
import { mysqlDialect } from './dialect';
import { MysqlStatements } from './mysql-statements';
import { ident, inList, sql } from './sql';

/**
 * On MySQL and MariaDB, statements outside a transaction run as server-side prepared statements
 * (the binary protocol), those inside one as text statements, and both read every column type
 * netkeel uses as the same values: a BOOLEAN as true or false. One pooled connection, so the
 * session's counters are this test's own.
 */
const run = testDatabases().includes('mysql');
(run ? describe : describe.skip)('MysqlStatements', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;
  const T = ident('mysql_statements_spec');
  const db = (prepare: boolean) => new Db(ds, mysqlDialect, new MysqlStatements(prepare));
  /** The session's counts of prepared statements made and executed. */
  const counters = async (d: Db) => {
    const rows = await d.query<{ Variable_name: string; Value: string }>(sql`SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_execute')`);
    const get = (n: string) => Number(rows.find((r) => r.Variable_name === n)?.Value);
    return { prepared: get('Com_stmt_prepare'), executed: get('Com_stmt_execute') };
  };
  const read = (d: Db, id: number) => d.query(sql`SELECT * FROM ${T} WHERE ${ident('id')} = ${id}`);

  beforeAll(async () => {
    const fresh = await freshDatabase('mysql');
    drop = fresh.drop;
    ds = new DataSource({ type: 'mysql', url: fresh.url, poolSize: 1, timezone: 'Z', supportBigNumbers: true, bigNumberStrings: false, dateStrings: false });
    await ds.initialize();
    const d = db(false);
    await d.execute(
      sql`CREATE TABLE ${T} (id int NOT NULL PRIMARY KEY, flag boolean NULL, small tinyint NULL, big bigint NULL, amount decimal(8,3) NULL,
          at datetime(6) NULL, doc json NULL, name varchar(20) NULL, bytes varbinary(4) NULL)`,
    );
    await d.execute(sql`INSERT INTO ${T} VALUES (1, TRUE, 7, 9007199254740991, 12.5, '2026-12-04 10:11:12.345678', '{"a": [1, "b"]}', 'x', X'00ff')`);
    await d.execute(sql`INSERT INTO ${T} VALUES (2, FALSE, -1, NULL, NULL, NULL, NULL, NULL, NULL)`);
    await d.execute(sql`INSERT INTO ${T} (id) VALUES (3)`);
  });
  afterAll(async () => {
    await ds?.destroy();
    await drop?.();
  });

  it('reads the same values prepared, as text, and inside a transaction', async () => {
    const expected = [
      { id: 1, flag: true, small: 7, big: 9007199254740991, amount: '12.500', at: new Date('2026-12-04T10:11:12.345Z'), doc: { a: [1, 'b'] }, name: 'x', bytes: Buffer.from([0, 255]) },
      { id: 2, flag: false, small: -1, big: null, amount: null, at: null, doc: null, name: null, bytes: null },
      { id: 3, flag: null, small: null, big: null, amount: null, at: null, doc: null, name: null, bytes: null },
    ];
    for (const d of [db(true), db(false)]) {
      for (const [i, want] of expected.entries()) {
        expect(await read(d, i + 1)).toEqual([want]);
        expect(await d.transaction((t) => t.query(sql`SELECT * FROM ${T} WHERE ${ident('id')} = ${i + 1}`))).toEqual([want]);
      }
    }
  });

  it('prepares a statement once per connection and executes it after, outside transactions only', async () => {
    const d = db(true);
    await counters(d); // its own statement prepared
    const before = await counters(d);
    // A text no other test ran on this connection.
    for (let i = 0; i < 3; i++) await d.query(sql`SELECT ${ident('flag')} FROM ${T} WHERE ${ident('id')} = ${i + 1}`);
    await d.transaction((t) => t.query(sql`SELECT * FROM ${T} WHERE ${ident('id')} = ${2}`));
    const after = await counters(d);
    // The read prepared once and executed three times, and the second reading of the counters executed.
    expect({ prepared: after.prepared - before.prepared, executed: after.executed - before.executed }).toEqual({ prepared: 1, executed: 4 });
  });

  it('runs text statements only with PREPARED_STATEMENTS=false, and one with more values than a prepared statement is given', async () => {
    const plain = db(false);
    const before = await counters(plain);
    await read(plain, 1);
    const ids = Array.from({ length: 1001 }, (_, i) => i + 1);
    const prepared = db(true);
    const many = await prepared.query<{ id: number }>(sql`SELECT ${ident('id')} FROM ${T} WHERE ${inList(ident('id'), ids)} ORDER BY ${ident('id')}`);
    expect(many.map((r) => r.id)).toEqual([1, 2, 3]);
    const after = await counters(plain);
    expect({ prepared: after.prepared - before.prepared, executed: after.executed - before.executed }).toEqual({ prepared: 0, executed: 0 });
  });

  it('reports a failing prepared statement as the driver reports it, and goes on', async () => {
    const d = db(true);
    const failure = await d.query(sql`SELECT * FROM ${ident('no_such_table')}`).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect(String((failure as { driverError?: { code?: string } }).driverError?.code)).toBe('ER_NO_SUCH_TABLE');
    expect(await read(d, 2)).toHaveLength(1);
  });
});

/** Without a server: what is not prepared is run as text; any other failure is not run again. */
describe('MysqlStatements fallback', () => {
  const fake = (executeErrno: number) => {
    const calls: string[] = [];
    const conn = {
      execute: (_o: unknown, cb: (e: Error | null, r?: unknown) => void) => (calls.push('execute'), cb(Object.assign(new Error('refused'), { errno: executeErrno }))),
      query: (_o: unknown, cb: (e: Error | null, r?: unknown, f?: unknown[]) => void) => (calls.push('query'), cb(null, [{ flag: 1 }], [{ name: 'flag', columnType: 1, columnLength: 1 }])),
    };
    return { calls, qr: { connect: async () => conn } as never };
  };

  it('runs a statement the server would not prepare (too many prepared, unsupported) as text', async () => {
    for (const errno of [1461, 1295]) {
      const { calls, qr } = fake(errno);
      expect(await new MysqlStatements(true).run(qr, 'SELECT 1', [], true)).toEqual({ records: [{ flag: true }] });
      expect(calls).toEqual(['execute', 'query']);
    }
  });

  it('reports any other failure of a prepared statement without running it again', async () => {
    const { calls, qr } = fake(1146);
    await expect(new MysqlStatements(true).run(qr, 'SELECT 1', [], true)).rejects.toBeInstanceOf(QueryFailedError);
    expect(calls).toEqual(['execute']);
  });
});
