import { eachDatabase } from '../../src/core/testing/harness';
import { ident, sql } from '../../src/database/sql';

/** The orchestrator's probes (deployment issue): /health/ while the process serves, /ready/ only while every migration is applied. */
eachDatabase('probes', (t) => {
  it('/ready/ is a 503 saying so while a migration is not applied, and ready again once it is', async () => {
    await t().http.get('/health/').expect(200, { status: 'ok' });
    await t().http.get('/ready/').expect(200, { status: 'ready' });
    const rows = await t().db.query<{ id: number; timestamp: number; name: string }>(sql`SELECT ${ident('id')}, ${ident('timestamp')}, ${ident('name')} FROM ${ident('migrations')}`);
    const last = rows.reduce((a, b) => (Number(b.id) > Number(a.id) ? b : a));
    await t().db.execute(sql`DELETE FROM ${ident('migrations')} WHERE ${ident('id')} = ${last.id}`);
    try {
      await t().http.get('/ready/').expect(503, { status: 'unavailable', detail: 'Migrations are pending.' });
      await t().http.get('/health/').expect(200);
    } finally {
      await t().db.execute(sql`INSERT INTO ${ident('migrations')} (${ident('id')}, ${ident('timestamp')}, ${ident('name')}) VALUES (${last.id}, ${last.timestamp}, ${last.name})`);
    }
    await t().http.get('/ready/').expect(200, { status: 'ready' });
  });
});
