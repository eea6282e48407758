import { startApp, TestApp } from '../../src/core/testing/harness';
import { testDatabases } from '../../src/database/test-servers';
import { sql } from '../../src/database/sql';

/**
 * On a PostgreSQL server and on PGlite reads run as prepared statements unless
 * PREPARED_STATEMENTS=false (for a pooler that cannot keep them). pg_prepared_statements lists
 * the session's own, the statement that reads it included when it is prepared.
 */
describe.each(testDatabases().filter((k) => k !== 'mysql'))('prepared statements [%s]', (kind) => {
  const held = async (t: TestApp) => Number((await t.db.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM pg_prepared_statements`))[0].n);

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
