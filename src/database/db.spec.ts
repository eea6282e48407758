import { DataSource } from 'typeorm';
import { freshDatabase, testDatabases } from './test-servers';
import { openDatabase } from './data-source.factory';
import { Db, Executor } from './db';
import { mysqlDialect, postgresDialect } from './dialect';
import { ident, sql } from './sql';

/**
 * A statement issued through the pool joins the transaction open in the same async context, and
 * only that one; async-context tracking is switched off while no transaction is open and back
 * on for the next. On the servers, where transactions run side by side.
 */
const kinds = testDatabases().filter((k): k is 'postgres' | 'mysql' => k !== 'pglite');

// Without a server URL (a plain `npm test`) there is nothing to run: skipped, not an empty table.
(kinds.length ? describe.each(kinds) : describe.skip.each(['postgres' as const]))('Db transactions on %s', (kind) => {
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
    let here = false;
    const tx = db.transaction(async (t) => {
      await insert(t, 'a');
      inside = await count(); // through the pool: joins the transaction
      here = db.inTransactionHere;
      await g.wait;
    });
    while (inside === -1) await new Promise((r) => setTimeout(r, 5));
    expect(inside).toBe(1);
    expect([here, db.inTransactionHere]).toEqual([true, false]); // what kept nested objects ask (kept-nested.ts)
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

/**
 * A transaction's work cut short by a failure (one branch of a Promise.all rejects while another
 * goes on) must not leave statements running on its connection: the rollback waits for the one
 * in flight, and a statement issued after the end is refused instead of running outside the
 * transaction, on a connection back in the pool. On all three databases.
 */
describe.each(testDatabases())('Db transaction ends on %s', (kind) => {
  let db: Db;
  let close: () => Promise<void>;
  const T = ident('db_spec_late');
  const names = async () => (await db.query<{ name: string }>(sql`SELECT ${ident('name')} FROM ${T} ORDER BY ${ident('name')}`)).map((r) => r.name);
  const insert = (exec: Executor, name: string) => exec.execute(sql`INSERT INTO ${T} (${ident('name')}) VALUES (${name})`);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    if (kind === 'pglite') {
      const open = await openDatabase({ kind: 'pglite', dataDir: 'memory://' }, { migrations: { postgres: [], mysql: [] } });
      db = new Db(open.dataSource, open.dialect);
      close = () => open.close();
    } else {
      const fresh = await freshDatabase(kind);
      const ds = new DataSource(kind === 'postgres' ? { type: 'postgres', url: fresh.url, poolSize: 2 } : { type: 'mysql', url: fresh.url, poolSize: 2 });
      await ds.initialize();
      db = new Db(ds, kind === 'postgres' ? postgresDialect : mysqlDialect);
      close = async () => {
        await ds.destroy();
        await fresh.drop();
      };
    }
    await db.execute(sql`CREATE TABLE ${T} (${ident('name')} varchar(20) NOT NULL)`);
  });
  afterAll(async () => close?.());
  beforeEach(() => db.execute(sql`DELETE FROM ${T}`));

  it('rolls back only after the statement in flight, and refuses one issued after the end', async () => {
    const late: Promise<PromiseSettledResult<unknown>[]>[] = [];
    const failure = db.transaction(async (t) => {
      await insert(t, 'a');
      await Promise.all([
        t.execute(sql`INSERT INTO ${ident('no_such_table')} (${ident('name')}) VALUES (${'x'})`),
        (async () => {
          // Queued behind the failing statement: runs (PostgreSQL refuses it: the transaction is
          // aborted), then is rolled back.
          await insert(t, 'b').catch(() => undefined);
          await sleep(30);
          late.push(Promise.allSettled([insert(t, 'c')])); // the transaction has ended by now
        })(),
      ]);
    });
    await expect(failure).rejects.toThrow();
    await sleep(60);
    const results = (await Promise.all(late)).flat();
    expect(results.map((r) => r.status)).toEqual(['rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toContain('after its transaction ended');
    expect(await names()).toEqual([]);
    // The connection went back to the pool clean: the next transaction commits normally.
    await db.transaction((t) => insert(t, 'e'));
    expect(await names()).toEqual(['e']);
  });

  it('commits after a statement the work started and did not wait for', async () => {
    let pending: Promise<unknown> | undefined;
    await db.transaction(async (t) => {
      await insert(t, 'a');
      pending = insert(t, 'b'); // not awaited by the work
    });
    await pending;
    expect(await names()).toEqual(['a', 'b']);
  });
});
