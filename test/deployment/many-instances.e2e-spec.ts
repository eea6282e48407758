import request from 'supertest';
import { startApp, TestApp } from '../../src/core/testing/harness';
import { createApp } from '../../src/bootstrap';
import { loadSettings } from '../../src/config/settings';
import { freshDatabase, testDatabases } from '../../src/database/test-servers';
import { Instance, startInstance } from '../support/processes';
import { POLL_TIMING } from '../../src/database/change-poll';
import { eventually, sleep } from '../support/outside';
import { createUser, tokenFor } from '../support/users';

/** What both instances are started with: a rate limit, and definitions kept as in production. */
const SHARED = { RATE_LIMIT: '20/hour', RATE_LIMIT_EXEMPT_SUPERUSERS: 'true', DEFINITION_CACHE_SECONDS: '2' };
/** How long a change made through one instance may take to apply on the other (docs/architecture.md, "Many instances": 2 s at most). */
const BOUND_MS = 5000;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * Two netkeel processes on one database server behave as one service (deployment issue): A is
 * started in this process (without a job worker), B from the built server as a process of its
 * own, with nothing shared but the database and the settings. What one is told, the other
 * applies: within milliseconds on PostgreSQL (notifications), at the next poll of the change
 * counts on MySQL/MariaDB (a quarter of a second); each check waits for the condition up to a
 * deadline. PGlite holds its data directory for one process: a second is refused
 * (test/behaviour/pglite.e2e-spec.ts, "refuses to start a second server on the same data directory").
 */
const servers = testDatabases().filter((k) => k !== 'pglite');
// Without a database server in the run, jest.config.js leaves this suite out (saying so).
describe.each(servers)('two instances on one %s database', (kind) => {
  let a: TestApp;
  let b: Instance;
  const A = () => a.http;
  const B = () => request(b.url);
  const as = (key: string) => ({ Authorization: `Token ${key}` });

  beforeAll(async () => {
    a = await startApp(kind as 'postgres', { env: { ...SHARED, JOBS_WORKER: 'false' } });
    // On PostgreSQL B's worker looks at the queue only when woken (a notification); on MariaDB it polls.
    const poll = kind === 'postgres' ? '600000' : '500';
    b = await startInstance({ ...SHARED, DATABASE_URL: a.url!, SECRET_KEY: a.secret, EXPOSE_STATEMENT_COUNT: 'true', JOBS_POLL_INTERVAL_MS: poll });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  /** B's running count of statements, after a request with `key`. */
  const statementsOnB = async (key: string) => Number((await B().get('/api/').set(as(key)).expect(200)).headers['x-statement-count']);
  /**
   * Waits until B's change feed hears (PostgreSQL: its listener's pings come back; MySQL: its polls
   * of the change counts do, after the one that sees what A just wrote): from then on B keeps what
   * it reads, so what the test changes through A must reach it through the feed.
   * (The superuser is exempt from the rate limit: its requests cost nothing once its token is kept.)
   */
  const bHears = async () => {
    if (kind === 'mysql') {
      await B().get('/api/').set(as(a.token)).expect(200); // B polls while it is in use
      await sleep(2 * POLL_TIMING.pollMs);
    }
    expect(await eventually(async () => (await statementsOnB(a.token)) === (await statementsOnB(a.token)), BOUND_MS)).toBe(true);
  };

  it('refuses through B a login that guesses through A locked out', async () => {
    const id = await createUser(a, 'guessed', { password: 'guessed-password-1' });
    await a.post('/api/users/permissions/', { name: 'guessed-tokens', object_types: ['users.token'], actions: ['add', 'view'], users: [id] }).expect(201);
    const login = (via: () => request.Agent | ReturnType<typeof request>, address: string, password: string) =>
      via().post('/api/users/tokens/').set('X-Forwarded-For', address).set('Authorization', basic('guessed', password)).send({});
    for (let i = 0; i < 5; i++) await login(A, '10.30.0.1', 'wrong').expect(403);
    const refused = await login(B, '10.30.0.1', 'guessed-password-1').expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The user is not locked out from elsewhere, on either instance.
    await login(B, '10.30.0.2', 'guessed-password-1').expect(201);
  });

  it('refuses through B a token deleted or expired through A, and the tokens of a user deactivated through A', async () => {
    const id = await createUser(a, 'revoking');
    await a.post('/api/users/permissions/', { name: 'own-tokens', object_types: ['users.token'], actions: ['view', 'change', 'delete'], users: [id] }).expect(201);
    const [manager, deleted, expired] = [await tokenFor(a, id), await tokenFor(a, id), await tokenFor(a, id)];
    const other = await createUser(a, 'deactivated');
    const deactivated = await tokenFor(a, other);
    // B knows them all, and keeps them: a second request costs no statement (the first claimed
    // a slice of two requests of the rate limit, so the second claims nothing).
    await bHears();
    for (const key of [deleted, expired, deactivated]) {
      const first = await statementsOnB(key);
      expect(await statementsOnB(key)).toBe(first);
    }
    const idOf = async (key: string) => (await A().get(`/api/users/tokens/?key=${key}`).set(as(manager)).expect(200)).body.results[0].id;
    await A().delete(`/api/users/tokens/${await idOf(deleted)}/`).set(as(manager)).expect(204);
    await A().patch(`/api/users/tokens/${await idOf(expired)}/`).set(as(manager)).send({ expires: '2001-01-01T00:00:00Z' }).expect(200);
    await a.patch(`/api/users/users/${other}/`, { is_active: false }).expect(200);
    const refusedOnB = (key: string, detail: string) => async () => {
      const r = await B().get('/api/').set(as(key));
      return r.status === 403 && r.body.detail === detail;
    };
    expect(await eventually(refusedOnB(deleted, 'Invalid token'), BOUND_MS)).toBe(true);
    expect(await eventually(refusedOnB(expired, 'Token expired'), BOUND_MS)).toBe(true);
    expect(await eventually(refusedOnB(deactivated, 'User inactive'), BOUND_MS)).toBe(true);
    await B().get('/api/').set(as(manager)).expect(200);
  });

  it('applies through B a permission granted through A', async () => {
    const id = await createUser(a, 'granted');
    const key = await tokenFor(a, id);
    await bHears();
    await B().get('/api/tenancy/tenants/').set(as(key)).expect(403);
    await a.post('/api/users/permissions/', { name: 'granted-tenants', object_types: ['tenancy.tenant'], actions: ['view'], users: [id] }).expect(201);
    expect(await eventually(async () => (await B().get('/api/tenancy/tenants/').set(as(key))).status === 200, BOUND_MS)).toBe(true);
  });

  it('validates through B a custom field created through A', async () => {
    await bHears();
    const tenant = (await B().post('/api/tenancy/tenants/').set(as(a.token)).send({ name: 'Custom field holder' }).expect(201)).body;
    const url = `/api/tenancy/tenants/${tenant.id}/`;
    // B has read the definitions (none), and keeps them: a key no field has is ignored.
    expect((await B().patch(url).set(as(a.token)).send({ custom_fields: { floors: 'many' } }).expect(200)).body.custom_fields).toEqual({});
    await a.post('/api/extras/custom-fields/', { label: 'Floors', key: 'floors', type: 'integer', content_types: ['tenancy.tenant'] }).expect(201);
    let refusal: { status: number; body: any } | undefined;
    expect(
      await eventually(async () => {
        refusal = await B().patch(url).set(as(a.token)).send({ custom_fields: { floors: 'many' } });
        return refusal.status !== 200;
      }, BOUND_MS),
    ).toBe(true);
    expect(refusal!.status).toBe(400);
    expect(JSON.stringify(refusal!.body)).toContain("Invalid value for custom field 'floors'");
    expect((await B().patch(url).set(as(a.token)).send({ custom_fields: { floors: 3 } }).expect(200)).body.custom_fields).toEqual({ floors: 3 });
  });

  it("counts a user's requests through both against one RATE_LIMIT", async () => {
    const key = await tokenFor(a, await createUser(a, 'limited'));
    for (let i = 0; i < 10; i++) await A().get('/api/').set(as(key)).expect(200);
    for (let i = 1; i <= 10; i++) {
      const r = await B().get('/api/').set(as(key)).expect(200);
      expect(r.headers['x-ratelimit-remaining']).toBe(String(10 - i));
    }
    await A().get('/api/').set(as(key)).expect(429);
    await B().get('/api/').set(as(key)).expect(429);
  });

  it('runs on B a job queued through A, which runs no worker: B is woken at once on PostgreSQL, polls on MariaDB', async () => {
    const job = (await a.get(`/api/extras/jobs/?name=${encodeURIComponent('Import Objects')}`).expect(200)).body.results[0];
    const csv = 'name\nQueued on A\n';
    const queued = (await a.post(`/api/extras/jobs/${job.id}/run/`, { data: { content_type: 'tenancy.tenant', csv_data: csv } }).expect(201)).body.job_result;
    expect(await eventually(async () => (await a.get(`/api/extras/job-results/${queued.id}/`).expect(200)).body.status.value === 'SUCCESS', BOUND_MS)).toBe(true);
    expect((await a.get('/api/tenancy/tenants/?name=Queued on A').expect(200)).body.count).toBe(1);
  });

  it('starts two instances at once on an empty database: one applies the migrations, the other waits for it', async () => {
    const fresh = await freshDatabase(kind as 'postgres');
    const env = { DATABASE_URL: fresh.url, SECRET_KEY: a.secret, LOG_LEVEL: 'error', SUPERUSER_NAME: 'admin', SUPERUSER_PASSWORD: 'admin-password', JOBS_WORKER: 'false' };
    const started = await Promise.allSettled([createApp({ settings: loadSettings(env) }, 'error'), createApp({ settings: loadSettings(env) }, 'error')]);
    try {
      expect(started.map((r) => (r.status === 'rejected' ? String(r.reason) : 'started'))).toEqual(['started', 'started']);
    } finally {
      for (const r of started) if (r.status === 'fulfilled') await r.value.close();
      await fresh.drop();
    }
  });
});
