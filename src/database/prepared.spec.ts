import { DataSource, QueryFailedError, QueryRunner } from 'typeorm';
import { freshDatabase, testDatabases } from './test-servers';
import { postgresDialect } from './dialect';
import { PreparedStatements } from './prepared';

const onPostgres = testDatabases().includes('postgres') ? describe : describe.skip;

onPostgres('PreparedStatements on PostgreSQL', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;
  let qr: QueryRunner;

  beforeAll(async () => {
    const fresh = await freshDatabase('postgres');
    drop = fresh.drop;
    ds = new DataSource({ type: 'postgres', url: fresh.url, poolSize: 1 });
    await ds.initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
    await drop?.();
  });
  beforeEach(async () => {
    qr = ds.createQueryRunner();
    await qr.query('DEALLOCATE ALL');
  });
  afterEach(async () => {
    await qr.query('DEALLOCATE ALL').catch(() => undefined);
    await qr.release();
  });

  const held = async () => (await qr.query('SELECT statement FROM pg_prepared_statements ORDER BY statement')).map((r: { statement: string }) => r.statement);
  const plus = (n: number) => `SELECT $1::int + ${n} AS n`;

  it('prepares each text once per connection and keeps the most recently used', async () => {
    const ps = new PreparedStatements(2);
    expect((await ps.run(qr, plus(1), [1])).records).toEqual([{ n: 2 }]);
    expect((await ps.run(qr, plus(2), [1])).records).toEqual([{ n: 3 }]);
    expect((await ps.run(qr, plus(1), [5])).records).toEqual([{ n: 6 }]); // reused, now the most recent
    expect(await held()).toEqual([plus(1), plus(2)]);
    expect((await ps.run(qr, plus(3), [1])).records).toEqual([{ n: 4 }]); // closes "+ 2"
    expect(await held()).toEqual([plus(1), plus(3)]);
    expect((await ps.run(qr, plus(2), [1])).records).toEqual([{ n: 3 }]); // prepared again
    expect(await held()).toEqual([plus(2), plus(3)]);
  });

  it('reports a failed statement as TypeORM does, and the connection goes on', async () => {
    const ps = new PreparedStatements(2);
    const err = await ps.run(qr, 'SELECT 1 / $1::int AS n', [0]).catch((e) => e);
    expect(err).toBeInstanceOf(QueryFailedError);
    expect(postgresDialect.errorKind(err)).toBe('invalid_value');
    await expect(ps.run(qr, 'SELECT * FROM no_such_table WHERE id = $1', [1])).rejects.toBeInstanceOf(QueryFailedError);
    expect((await ps.run(qr, 'SELECT 1 / $1::int AS n', [1])).records).toEqual([{ n: 1 }]);
    expect((await ps.run(qr, plus(1), [1])).records).toEqual([{ n: 2 }]);
  });

  it('describes a statement\'s result columns once per connection, and again after it failed', async () => {
    const ps = new PreparedStatements(2);
    const connection = ((await qr.connect()) as { connection: { describe: () => void } }).connection;
    const describe = jest.spyOn(connection, 'describe');
    const text = `SELECT $1::int AS n, TIMESTAMPTZ '2026-01-02T03:04:05Z' AS at, '{"a": [1]}'::jsonb AS j, NULL::text AS t FROM generate_series(1, $1::int)`;
    try {
      expect((await ps.run(qr, text, [1])).records).toEqual([{ n: 1, at: new Date('2026-01-02T03:04:05Z'), j: { a: [1] }, t: null }]);
      // Bound and executed only: the rows are parsed by the columns' types all the same.
      const again = await ps.run(qr, text, [2]);
      expect(again.records).toEqual([1, 2].map(() => ({ n: 2, at: new Date('2026-01-02T03:04:05Z'), j: { a: [1] }, t: null })));
      expect(again.affected).toBe(2);
      expect((await ps.run(qr, text, [0])).records).toEqual([]);
      expect(describe).toHaveBeenCalledTimes(1);
      // A value that cannot be bound fails the statement; the connection goes on, and the next
      // execution describes the result again.
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      await expect(ps.run(qr, text, [circular])).rejects.toBeInstanceOf(QueryFailedError);
      expect((await ps.run(qr, text, [1])).records).toEqual([{ n: 1, at: new Date('2026-01-02T03:04:05Z'), j: { a: [1] }, t: null }]);
      expect(describe).toHaveBeenCalledTimes(2);
      // So does a statement's first execution.
      await expect(ps.run(qr, plus(7), [circular])).rejects.toBeInstanceOf(QueryFailedError);
      expect((await ps.run(qr, plus(7), [1])).records).toEqual([{ n: 8 }]);
    } finally {
      describe.mockRestore();
    }
  });

  it('keeps what it could not close in a failed transaction, and runs it again after', async () => {
    const ps = new PreparedStatements(1);
    const div = 'SELECT 1 / $1::int AS n';
    await ps.run(qr, plus(1), [1]);
    await qr.startTransaction();
    await expect(ps.run(qr, div, [0])).rejects.toBeInstanceOf(QueryFailedError); // parsed, then failed
    // The transaction has failed: closing `div` fails, and so does the next statement.
    await expect(ps.run(qr, plus(2), [1])).rejects.toBeInstanceOf(QueryFailedError);
    await qr.rollbackTransaction();
    expect(await held()).toEqual([div]);
    // The session still holds `div`, and the client knows: it binds it instead of parsing it again.
    expect((await ps.run(qr, div, [1])).records).toEqual([{ n: 1 }]);
    expect((await ps.run(qr, plus(2), [2])).records).toEqual([{ n: 4 }]);
    expect(await held()).toEqual([plus(2)]);
  });
});
