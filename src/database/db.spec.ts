import { DataSource } from 'typeorm';
import { freshDatabase, testDatabases } from '../core/testing/servers';
import { Db, Executor } from './db';
import { mysqlDialect, postgresDialect } from './dialect';
import { ident, sql } from './sql';

/**
 * A statement issued through the pool joins the transaction open in the same async context, and
 * only that one; async-context tracking is switched off while no transaction is open and back
 * on for the next. On the servers, where transactions run side by side.
 */
const kinds = testDatabases().filter((k): k is 'postgres' | 'mysql' => k !== 'pglite');

describe.each(kinds)('Db transactions on %s', (kind) => {
  let ds: DataSource;
  let db: Db;
  let drop: () => Promise<void>;
  const T = ident('db_spec_item');
  const count = async () => Number((await db.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${T}`))[0].n);
  const insert = (exec: Executor, name: string) => exec.execute(sql`INSERT INTO ${T} (${ident('name')}) VALUES (${name})`);

  /** Resolves when `release` is called: holds a transaction open. */
  const gate = () => {
    let release!: () => void;
    const wait = new Promise<void>((r) => (release = r));
    return { wait, release };
  };

  beforeAll(async () => {
    const fresh = await freshDatabase(kind);
    drop = fresh.drop;
    ds = new DataSource(kind === 'postgres' ? { type: 'postgres', url: fresh.url, poolSize: 4 } : { type: 'mysql', url: fresh.url, poolSize: 4 });
    await ds.initialize();
    db = new Db(ds, kind === 'postgres' ? postgresDialect : mysqlDialect);
    await db.execute(sql`CREATE TABLE ${T} (${ident('name')} varchar(20) NOT NULL)`);
  });
  afterAll(async () => {
    await ds?.destroy();
    await drop?.();
  });
  beforeEach(() => db.execute(sql`DELETE FROM ${T}`));

  it('runs a pool statement inside the open transaction, which another context does not see', async () => {
    const g = gate();
    let inside = -1;
    const tx = db.transaction(async (t) => {
      await insert(t, 'a');
      inside = await count(); // through the pool: joins the transaction
      await g.wait;
    });
    while (inside === -1) await new Promise((r) => setTimeout(r, 5));
    expect(inside).toBe(1);
    expect(await count()).toBe(0); // another context: its own connection, the write not yet committed
    g.release();
    await tx;
    expect(await count()).toBe(1);
  });

  it('keeps joining a transaction after one that overlapped it has ended, and again after all have', async () => {
    const g1 = gate();
    const g2 = gate();
    const seen: number[] = [];
    const t1 = db.transaction(async (t) => {
      await insert(t, 'one');
      await g1.wait;
    });
    const t2 = db.transaction(async (t) => {
      await insert(t, 'two');
      await g2.wait;
      seen.push(await count()); // t1 has committed: its row and this transaction's own
    });
    await new Promise((r) => setTimeout(r, 50));
    g1.release();
    await t1;
    g2.release();
    await t2;
    expect(seen).toEqual([2]);
    // No transaction is open now; the next one is joined again.
    await db.transaction(async (t) => {
      await insert(t, 'three');
      seen.push(await count());
      throw new Error('roll back');
    }).catch(() => undefined);
    expect(seen).toEqual([2, 3]);
    expect(await count()).toBe(2);
  });
});
