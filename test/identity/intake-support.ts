/** What the identity intake suites share: the request clock, the intake URL and helpers over one app. */
import type { TestApp } from '../../src/core/testing/harness';
import { ident, sql } from '../../src/database/sql';

export type Obj = Record<string, any>;

export const BASE = new Date('2030-06-01T12:00:00Z');
export const DAY = 24 * 3600 * 1000;
export const LOCATIONS = '/api/dcim/locations/';

export const intake = (slug: string, sorId: string) => `/api/identity/sources/${slug}/identities/${encodeURIComponent(sorId)}/`;

/** A clock the app reads for every request (pass `clock.now` as the app's clock); reset to BASE before each test. */
export function testClock() {
  let now = BASE;
  beforeEach(() => {
    now = BASE;
  });
  return {
    now: () => now,
    at: (iso: string) => (now = new Date(iso)),
  };
}

/** Helpers over the app of the running suite. */
export function intakeHelpers(t: () => TestApp) {
  const source = async (slug: string, extra: Obj = {}) =>
    (await t().post('/api/identity/sources/', { name: `Source ${slug}`, slug, ...extra }).expect(201)).body as Obj;
  const put = (slug: string, sorId: string, body: unknown, token?: string) => t().put(intake(slug, sorId), body, token);
  const user = async (id: string) => (await t().get(`/api/users/users/${id}/?depth=1`).expect(200)).body as Obj;
  const groupsOf = async (id: string) => ((await user(id)).groups as Obj[]).map((g) => g.name).sort();
  const history = async (id: string) => (await t().get(`/api/identity/external-identities/${id}/history/?limit=100`).expect(200)).body as Obj;
  const count = async (path: string) => (await t().get(`${path}?limit=1`).expect(200)).body.count as number;
  const rows = async (table: string) => Number((await t().db.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${ident(table)}`))[0].n);
  /** History entries are the identities' change records that carry intake's account (`_seq`). */
  const historyEntries = async () =>
    Number(
      (
        await t().db.query<{ n: number }>(
          sql`SELECT COUNT(*) AS n FROM ${ident('extras_objectchange')} WHERE ${ident('changed_object_type')} = ${'identity.externalidentity'} AND ${ident('_seq')} IS NOT NULL`,
        )
      )[0].n,
    );
  const counts = async () => ({
    identities: await count('/api/identity/external-identities/'),
    roles: await count('/api/identity/external-identity-roles/'),
    users: await count('/api/users/users/'),
    groups: await count('/api/users/groups/'),
    history: await historyEntries(),
  });
  /** A group with view permission on locations, and one location to see. */
  const locationViewers = async (group: string) => {
    const g = await t().post('/api/users/groups/', { name: group }).expect(201);
    await t().post('/api/users/permissions/', { name: `${group} views locations`, object_types: ['dcim.location'], actions: ['view'], groups: [g.body.id] }).expect(201);
    return g.body.id as string;
  };
  /** users_user.status_check_after: from when the auth guard asks the identities about the user. */
  const checkAfter = async (uid: string) => {
    const [r] = await t().db.query(sql`SELECT ${ident('status_check_after')} AS v FROM ${ident('users_user')} WHERE ${ident('id')} = ${uid}`);
    return r.v ? new Date(r.v).toISOString() : null;
  };
  let locationMade = false;
  const aLocation = async () => {
    if (locationMade) return;
    locationMade = true;
    const type = await t().post('/api/dcim/location-types/', { name: 'Site' }).expect(201);
    await t().post(LOCATIONS, { name: 'AMS1', location_type: type.body.id, status: 'Active' }).expect(201);
  };
  return { source, put, user, groupsOf, history, count, rows, historyEntries, counts, locationViewers, checkAfter, aLocation };
}
