import { startApp, TestApp } from '../../src/core/testing/harness';
import { testDatabases } from '../../src/database/test-servers';
import { raw } from '../../src/database/sql';

/**
 * Every pooled session of a database server carries STATEMENT_TIMEOUT_MS, including the one
 * that ran the migrations without a limit: no request can run unbounded on a session that
 * happens to be that one.
 */
const servers = testDatabases().filter((k): k is 'postgres' | 'mysql' => k !== 'pglite');
const maybe = servers.length ? describe.each(servers) : describe.skip.each([['none']]);

maybe('statement time limit [%s]', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind as 'postgres' | 'mysql', { env: { STATEMENT_TIMEOUT_MS: '4321' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('holds on every session of the pool', async () => {
    // Ten statements at once hold all ten pooled sessions; each reports its own limit.
    const probe = kind === 'postgres'
      ? raw(`SELECT current_setting('statement_timeout') AS v, pg_sleep(0.3) AS s`)
      : raw(`SELECT @@SESSION.max_statement_time AS v, SLEEP(0.3) AS s`);
    const rows = await Promise.all(Array.from({ length: 10 }, () => t.db.query<{ v: unknown }>(probe)));
    const limits = rows.map((r) => (kind === 'postgres' ? String(r[0].v) : String(Number(r[0].v))));
    const expected = kind === 'postgres' ? '4321ms' : '4.321';
    expect(limits).toEqual(Array(10).fill(expected));
  });
});
