import type { Response } from 'supertest';
import { ADMIN_TOKEN, eachDatabase, startApp, TestApp } from '../../src/core/testing/harness';
import { createUser, sessionCookieFor, tokenFor } from '../support/users';

const HOUR = 3_600_000;
/**
 * Each test starts in a window of its own: the clock is moved on two hours, to ten minutes past.
 * Two, not one: an instance deletes stale counters at most once an hour of its clock, so the
 * first claim of each test's window deletes them, and no later claim in the test does (with a
 * one-hour step, a claim later in the test than the last test's deleting claim was in its own
 * would delete again: one statement more than the test counts).
 */
let base = Math.floor(Date.now() / HOUR) * HOUR + 10 * 60_000;
let since = Date.now();
const clock = () => new Date(base + Date.now() - since);
const nextWindow = () => {
  base += 2 * HOUR;
  since = Date.now();
  // The window's end as Unix time in seconds: what X-RateLimit-Reset says.
  return (Math.floor(base / HOUR) + 1) * (HOUR / 1000);
};

const limitHeaders = (r: Response) => ({ limit: r.headers['x-ratelimit-limit'], remaining: r.headers['x-ratelimit-remaining'], reset: r.headers['x-ratelimit-reset'] });

/**
 * RATE_LIMIT (deployment issue): per user, all of their tokens and sessions together, and per
 * address for anonymous requests; 429 with DRF's sentence, Retry-After and the X-RateLimit-*
 * headers; a request costs no statement while its instance holds a claimed slice of the limit.
 * The suite's clock moves two hours on for each test, so each starts with the whole limit.
 */
eachDatabase(
  'rate limit',
  (t) => {
    it("counts a user's requests and refuses the one past the limit: 429, Retry-After, X-RateLimit-*", async () => {
      const reset = nextWindow();
      const token = await tokenFor(t(), await createUser(t(), 'counted'));
      for (let i = 1; i <= 40; i++) {
        const r = await t().get('/api/', token).expect(200);
        expect(limitHeaders(r)).toEqual({ limit: '40', remaining: String(40 - i), reset: String(reset) });
      }
      const refused = await t().get('/api/', token).expect(429);
      const wait = Number(refused.headers['retry-after']);
      expect(Math.abs(wait - (reset - clock().getTime() / 1000))).toBeLessThan(2);
      expect(refused.body).toEqual({ detail: `Request was throttled. Expected available in ${wait} seconds.` });
      expect(limitHeaders(refused)).toEqual({ limit: '40', remaining: '0', reset: String(reset) });
      // Refused requests are not counted; the next window has the whole limit again.
      await t().get('/api/', token).expect(429);
      const later = nextWindow();
      expect(limitHeaders(await t().get('/api/', token).expect(200))).toEqual({ limit: '40', remaining: '39', reset: String(later) });
    });

    it("counts a user's tokens and sessions together, and each user apart", async () => {
      nextWindow();
      const id = await createUser(t(), 'two-ways');
      const [first, second] = [await tokenFor(t(), id), await tokenFor(t(), id)];
      const cookie = await sessionCookieFor(t(), id);
      for (let i = 0; i < 10; i++) await t().get('/api/', first).expect(200);
      for (let i = 0; i < 10; i++) await t().get('/api/', second).expect(200);
      for (let i = 0; i < 19; i++) await t().http.get('/api/').set('Cookie', cookie).expect(200);
      expect(limitHeaders(await t().http.get('/api/').set('Cookie', cookie).expect(200)).remaining).toBe('0');
      await t().get('/api/', first).expect(429);
      await t().http.get('/api/').set('Cookie', cookie).expect(429);
      const other = await tokenFor(t(), await createUser(t(), 'someone-else'));
      expect(limitHeaders(await t().get('/api/', other).expect(200)).remaining).toBe('39');
    });

    it('counts anonymous requests per address (X-Forwarded-For from a trusted proxy)', async () => {
      nextWindow();
      const anonymous = (address: string) => t().http.get('/api/tenancy/tenants/').set('X-Forwarded-For', address);
      for (let i = 0; i < 40; i++) await anonymous('10.20.0.1').expect(200);
      expect((await anonymous('10.20.0.1').expect(429)).body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds?\.$/);
      expect(limitHeaders(await anonymous('10.20.0.2').expect(200)).remaining).toBe('39');
      // Refused by permissions still counts: the address spends its rate on 403s too.
      await t().http.get('/api/dcim/locations/').set('X-Forwarded-For', '10.20.0.2').expect(403);
      expect(limitHeaders(await anonymous('10.20.0.2').expect(200)).remaining).toBe('37');
    });

    it('limits superusers like everyone when RATE_LIMIT_EXEMPT_SUPERUSERS is false', async () => {
      nextWindow();
      for (let i = 0; i < 40; i++) await t().get('/api/', ADMIN_TOKEN).expect(200);
      await t().get('/api/', ADMIN_TOKEN).expect(429);
      nextWindow(); // the next tests' set-up needs the superuser
    });

    it('admits exactly the limit of parallel requests', async () => {
      nextWindow();
      const token = await tokenFor(t(), await createUser(t(), 'parallel'));
      const statuses = (await Promise.all(Array.from({ length: 50 }, () => t().get('/api/', token)))).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(40);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    });

    it('costs no statement while a claimed slice lasts, and a bounded few to claim the next', async () => {
      nextWindow();
      const token = await tokenFor(t(), await createUser(t(), 'measured'));
      const costs: number[] = [];
      for (let i = 0; i < 13; i++) costs.push(await t().countStatements(() => t().get('/api/', token).expect(200)));
      const base = Math.min(...costs);
      const extra = costs.map((c) => c - base);
      // A slice is a tenth of the limit: 4 requests. The first claim makes the key's row (and
      // may delete stale rows, once an hour); each later one raises the count and reads it back.
      expect(extra[0]).toBeGreaterThanOrEqual(4);
      expect(extra[0]).toBeLessThanOrEqual(5);
      expect(extra.slice(1)).toEqual([0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2]);
    });
  },
  { env: { RATE_LIMIT: '40/hour', EXEMPT_VIEW_PERMISSIONS: 'tenancy.tenant', CREDENTIAL_CACHE: 'false' }, clock },
);

/** Whether superusers are limited is decided before any count: one database shows it. */
describe('rate limit with RATE_LIMIT_EXEMPT_SUPERUSERS', () => {
  let t: TestApp;
  beforeAll(async () => {
    nextWindow();
    t = await startApp('pglite', { env: { RATE_LIMIT: '2/hour', RATE_LIMIT_EXEMPT_SUPERUSERS: 'true' }, clock });
  });
  afterAll(() => t?.close());

  it('leaves superusers unlimited and uncounted, and limits everyone else', async () => {
    for (let i = 0; i < 5; i++) expect(limitHeaders(await t.get('/api/').expect(200))).toEqual({ limit: undefined, remaining: undefined, reset: undefined });
    const token = await tokenFor(t, await createUser(t, 'plain'));
    await t.get('/api/', token).expect(200);
    expect(limitHeaders(await t.get('/api/', token).expect(200))).toMatchObject({ limit: '2', remaining: '0' });
    await t.get('/api/', token).expect(429);
  });
});
