import { startApp, TestApp } from '../../src/core/testing/harness';
import { testDatabases } from '../../src/database/test-servers';
import { sql } from '../../src/database/sql';

/**
 * Reads run as prepared statements unless PREPARED_STATEMENTS=false (for a pooler that cannot
 * keep them), on every database. On PostgreSQL and PGlite pg_prepared_statements lists the
 * session's own; on MySQL and MariaDB the session's count of prepared statements executed
 * (Com_stmt_execute) counts the statement that reads it when that one is prepared, and none
 * otherwise.
 */
describe.each(testDatabases())('prepared statements [%s]', (kind) => {
  const held = async (t: TestApp) =>
    kind === 'mysql'
      ? Number((await t.db.query<{ Value: string }>(sql`SHOW SESSION STATUS LIKE 'Com_stmt_execute'`))[0].Value)
      : Number((await t.db.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM pg_prepared_statements`))[0].n);

  for (const [setting, prepared] of [[undefined, true], ['true', true], ['false', false]] as const) {
    it(`${setting === undefined ? 'by default' : `with PREPARED_STATEMENTS=${setting}`} ${prepared ? 'prepares' : 'does not prepare'} reads, and lists alike`, async () => {
      const t = await startApp(kind, { env: setting === undefined ? {} : { PREPARED_STATEMENTS: setting } });
      try {
        await t.post('/api/tenancy/tenants/', [{ name: 'a' }, { name: 'b' }]).expect(201);
        for (let i = 0; i < 3; i++) {
          const res = await t.get('/api/tenancy/tenants/?sort=-name').expect(200);
          expect(res.body.results.map((x: { name: string }) => x.name)).toEqual(['b', 'a']);
        }
        if (prepared) expect(await held(t)).toBeGreaterThan(0);
        else expect(await held(t)).toBe(0);
      } finally {
        await t.close();
      }
    });
  }
});
