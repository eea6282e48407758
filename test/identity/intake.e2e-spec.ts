import { eachDatabase } from '../../src/core/testing/harness';
import { ident, sql } from '../../src/database/sql';
import { createUser, sessionCookieFor, tokenFor } from '../support/users';
import { MALFORMED } from './malformed-messages';
import { fullMessage, person, role } from './messages';

type Obj = Record<string, any>;

const BASE = new Date('2030-06-01T12:00:00Z');
let now = BASE;
const at = (iso: string) => (now = new Date(iso));
const DAY = 24 * 3600 * 1000;

const intake = (slug: string, sorId: string) => `/api/identity/sources/${slug}/identities/${encodeURIComponent(sorId)}/`;
const LOCATIONS = '/api/dcim/locations/';

eachDatabase(
  'identity intake',
  (t) => {
    beforeEach(() => {
      now = BASE;
    });

    const source = async (slug: string, extra: Obj = {}) =>
      (await t().post('/api/identity/sources/', { name: `Source ${slug}`, slug, ...extra }).expect(201)).body as Obj;
    const put = (slug: string, sorId: string, body: unknown, token?: string) => t().put(intake(slug, sorId), body, token);
    const user = async (id: string) => (await t().get(`/api/users/users/${id}/?depth=1`).expect(200)).body as Obj;
    const groupsOf = async (id: string) => ((await user(id)).groups as Obj[]).map((g) => g.name).sort();
    const history = async (id: string) => (await t().get(`/api/identity/external-identities/${id}/history/?limit=100`).expect(200)).body as Obj;
    const count = async (path: string) => (await t().get(`${path}?limit=1`).expect(200)).body.count as number;
    const counts = async () => ({
      identities: await count('/api/identity/external-identities/'),
      roles: await count('/api/identity/external-identity-roles/'),
      users: await count('/api/users/users/'),
      groups: await count('/api/users/groups/'),
      history: Number((await t().db.query<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${ident('identity_externalidentityhistory')}`))[0].n),
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

    it('lists the identity app at the API root, with its root listing its three endpoints', async () => {
      expect(Object.keys((await t().get('/api/').expect(200)).body)).toContain('identity');
      const root = await t().get('/api/identity/').expect(200);
      expect(Object.keys(root.body)).toEqual(['external-identities', 'external-identity-roles', 'sources']);
      const docs = await t().get('/api/swagger.json/').expect(200);
      expect(Object.keys(docs.body.paths)).toEqual(
        expect.arrayContaining([
          '/api/identity/sources/',
          '/api/identity/external-identities/{id}/',
          '/api/identity/external-identity-roles/',
          '/api/identity/sources/{slug}/identities/{sorId}',
          '/api/identity/external-identities/{id}/history',
        ]),
      );
      expect(Object.keys(docs.body.paths['/api/identity/sources/{slug}/identities/{sorId}']).sort()).toEqual(['delete', 'get', 'put']);
    });

    it('creates an identity (201) with its roles, and a user without a password that joins the mapped groups', async () => {
      await source('hr', { username_identifier_type: 'employeeNumber', affiliation_groups: { staff: 'HR Staff' }, role_groups: { 'lab-7': 'Lab 7' } });
      const msg = person({ given: 'Grace', employeeNumber: 'E100', roles: [role('staff-1', 'staff', 'A', { rank: 5 }), role('lab-7', 'research', 'A', { rank: 1 })] });
      const res = await put('hr', 'p-100', msg).expect(201);
      expect(res.body).toMatchObject({ sor_id: 'p-100', name: 'Grace Hopper', email: 'grace@example.org', status: { value: 'A' }, effective_status: { value: 'active' }, role_count: 2 });
      expect(res.body.message).toEqual(msg);
      expect(res.body.roles.map((r: Obj) => r.role_identifier)).toEqual(['lab-7', 'staff-1']);
      expect(res.body.primary_role.id).toBe(res.body.roles[0].id);
      const u = await user(res.body.user.id);
      expect(u).toMatchObject({ username: 'E100', first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.org', is_active: true, is_superuser: false });
      expect(await groupsOf(u.id)).toEqual(['HR Staff', 'Lab 7']);
      const basic = await t().http.post('/api/users/tokens/').auth('E100', '').expect(403);
      expect(basic.body).toEqual({ detail: 'Invalid username/password.' });
      const got = await t().get(intake('hr', 'p-100')).expect(200);
      expect(got.body).toEqual(res.body);
      const h = await history(res.body.id);
      expect(h.count).toBe(1);
      expect(h.results[0]).toMatchObject({ action: 'create', user_name: 'admin' });
      expect(h.results[0].changes.user).toMatchObject({ action: 'created', username: 'E100', fields: { is_active: { old: null, new: true } } });
      expect(h.results[0].changes.groups).toEqual({ added: ['HR Staff', 'Lab 7'], removed: [] });
      expect(h.results[0].changes.roles['staff-1']).toMatchObject({ action: 'added', fields: { status: { old: null, new: 'A' }, effective_status: { old: null, new: 'active' } } });
    });

    it('updates an identity (200) and records exactly what changed', async () => {
      await source('upd', { affiliation_groups: { staff: 'Upd Staff', research: 'Upd Research' } });
      const first = await put('upd', 'u1', person({ given: 'Alan', family: 'Turing', roles: [role('staff-1', 'staff', 'A', { title: 'Analyst' })] })).expect(201);
      at('2030-06-02T00:00:00Z');
      const msg = person({ given: 'Alan', family: 'Mathison-Turing', roles: [role('staff-1', 'staff', 'A', { title: 'Lead' }), role('r-2', 'research', 'A', { validFrom: '2030-07-01T00:00:00Z' })] });
      const res = await put('upd', 'u1', msg).expect(200);
      expect(res.body.id).toBe(first.body.id);
      expect(res.body.last_received).toBe('2030-06-02T00:00:00Z');
      const h = await history(res.body.id);
      expect(h.count).toBe(2);
      const c = h.results[0].changes;
      expect(h.results[0].action).toBe('update');
      expect(c.identity.name).toEqual({ old: 'Alan Turing', new: 'Alan Mathison-Turing' });
      expect(c.identity['sorAttributes.names']).toEqual({ old: [{ given: 'Alan', family: 'Turing' }], new: [{ given: 'Alan', family: 'Mathison-Turing' }] });
      expect(c.roles['staff-1']).toEqual({ action: 'changed', fields: { title: { old: 'Analyst', new: 'Lead' } } });
      expect(c.roles['r-2']).toMatchObject({ action: 'added', fields: { effective_status: { old: null, new: 'pending' } } });
      expect(c.user).toMatchObject({ action: 'changed', fields: { last_name: { old: 'Turing', new: 'Mathison-Turing' } } });
      expect(c.groups).toBeUndefined();
      expect(await groupsOf(res.body.user.id)).toEqual(['Upd Staff']);
    });

    it('answers an identical re-send with 200 and no new history entry, whatever the key order', async () => {
      await source('same');
      const msg = fullMessage();
      const first = await put('same', 's1', msg).expect(201);
      const again = await put('same', 's1', { sorAttributes: msg.sorAttributes, returnUrl: msg.returnUrl, meta: { objectType: 'externalIdentity', version: '1.0.0' } }).expect(200);
      expect(again.body).toEqual(first.body);
      await put('same', 's1', msg).expect(200);
      expect((await history(first.body.id)).count).toBe(1);
      const changed = await put('same', 's1', { ...msg, extension: { unknown: true } }).expect(200);
      expect(changed.body.message.extension).toEqual({ unknown: true });
      const h = await history(first.body.id);
      expect(h.count).toBe(2);
      expect(h.results[0].changes).toEqual({ identity: { extension: { old: null, new: { unknown: true } } } });
      // Re-sent after its role ended: what came due is applied and recorded as a transition, not as an update.
      const ending = person({ given: 'Tim', roles: [role('r', 'staff', 'A', { validThrough: '2030-06-02T00:00:00Z' })] });
      const tim = await put('same', 's2', ending).expect(201);
      at('2030-06-03T00:00:00Z');
      const resent = await put('same', 's2', ending).expect(200);
      expect(resent.body.effective_status.value).toBe('inactive');
      expect((await history(tim.body.id)).results.map((e: Obj) => e.action)).toEqual(['transition', 'create']);
      expect((await user(tim.body.user.id)).is_active).toBe(false);
      await put('same', 's2', ending).expect(200);
      expect((await history(tim.body.id)).count).toBe(2);
    });

    it('gives a role missing from a later message the source status_on_delete, and ends the groups it gave', async () => {
      await source('sus', { status_on_delete: 'S', affiliation_groups: { staff: 'Sus Staff' }, role_groups: { 'lab-1': 'Sus Lab' } });
      const res = await put('sus', 'm1', person({ given: 'Hedy', roles: [role('staff-1', 'staff'), role('lab-1', 'research')] })).expect(201);
      const uid = res.body.user.id;
      expect(await groupsOf(uid)).toEqual(['Sus Lab', 'Sus Staff']);
      at('2030-06-03T00:00:00Z');
      const after = await put('sus', 'm1', person({ given: 'Hedy', roles: [role('staff-1', 'staff')] })).expect(200);
      const lab = after.body.roles.find((r: Obj) => r.role_identifier === 'lab-1');
      expect(lab).toMatchObject({ status: { value: 'S' }, effective_status: { value: 'suspended' }, missing_since: '2030-06-03T00:00:00Z', status_since: '2030-06-03T00:00:00Z' });
      expect(after.body.role_count).toBe(2);
      expect(await groupsOf(uid)).toEqual(['Sus Staff']);
      const c = (await history(res.body.id)).results[0].changes;
      expect(c.roles['lab-1']).toEqual({
        action: 'missing',
        fields: { status: { old: 'A', new: 'S' }, missing_since: { old: null, new: '2030-06-03T00:00:00Z' }, effective_status: { old: 'active', new: 'suspended' } },
      });
      expect(c.groups).toEqual({ added: [], removed: ['Sus Lab'] });
      expect((await user(uid)).is_active).toBe(true);
      // Coming back restores the role and its group.
      const back = await put('sus', 'm1', person({ given: 'Hedy', roles: [role('staff-1', 'staff'), role('lab-1', 'research')] })).expect(200);
      expect(back.body.roles.find((r: Obj) => r.role_identifier === 'lab-1')).toMatchObject({ status: { value: 'A' }, missing_since: null });
      expect(await groupsOf(uid)).toEqual(['Sus Lab', 'Sus Staff']);
    });

    it('keeps access through a grace period (GP) and ends it when the grace period passes, with no new message', async () => {
      await locationViewers('Grace Viewers');
      await aLocation();
      await source('gp', { status_on_delete: 'GP', grace_period_days: 10, affiliation_groups: { staff: 'Grace Viewers' } });
      const res = await put('gp', 'g1', person({ given: 'Barbara', roles: [role('staff-1', 'staff')] })).expect(201);
      const uid = res.body.user.id;
      const token = await tokenFor(t(), uid);
      await t().get(LOCATIONS, token).expect(200);
      at('2030-06-05T00:00:00Z');
      const gone = await put('gp', 'g1', person({ given: 'Barbara', roles: [] })).expect(200);
      expect(gone.body.roles[0]).toMatchObject({ status: { value: 'GP' }, effective_status: { value: 'grace_period' }, grace_until: '2030-06-15T00:00:00Z' });
      expect(gone.body.effective_status.value).toBe('active');
      expect((await t().get(LOCATIONS, token).expect(200)).body.count).toBeGreaterThan(0);
      // A later message without the role does not restart the grace period.
      at('2030-06-10T00:00:00Z');
      await put('gp', 'g1', person({ given: 'Barbara', family: 'Liskov', roles: [] })).expect(200);
      at('2030-06-14T23:59:59Z');
      await t().get(LOCATIONS, token).expect(200);
      at('2030-06-15T00:00:00Z');
      const denied = await t().get(LOCATIONS, token).expect(403);
      expect(denied.body).toEqual({ detail: 'User inactive' });
      const now15 = await t().get(`/api/identity/external-identity-roles/${gone.body.roles[0].id}/`).expect(200);
      expect(now15.body.effective_status.value).toBe('expired');
      expect((await user(uid)).is_active).toBe(false);
      expect(await groupsOf(uid)).toEqual([]);
      const h = await history(res.body.id);
      expect(h.results[0]).toMatchObject({ action: 'transition', user: null, user_name: '' });
      expect(h.results[0].changes).toMatchObject({
        identity: { effective_status: { old: 'active', new: 'inactive' } },
        roles: { 'staff-1': { action: 'changed', fields: { effective_status: { old: 'grace_period', new: 'expired' } } } },
        user: { fields: { is_active: { old: true, new: false } } },
        groups: { added: [], removed: ['Grace Viewers'] },
      });
    });

    it('computes effective status across validFrom and validThrough with the clock; access follows at once', async () => {
      const groupId = await locationViewers('NOC');
      await aLocation();
      await source('noc', { affiliation_groups: { noc: 'NOC' } });
      const msg = person({ given: 'Radia', roles: [role('noc-1', 'noc', 'A', { validFrom: '2030-07-01T00:00:00Z', validThrough: '2030-08-01T00:00:00+02:00' })] });
      const res = await put('noc', 'n1', msg).expect(201);
      const uid = res.body.user.id;
      const rid = res.body.roles[0].id;
      const token = await tokenFor(t(), uid);
      const cookie = await sessionCookieFor(t(), uid);
      const roleStatus = async () => (await t().get(`/api/identity/external-identity-roles/${rid}/`).expect(200)).body.effective_status.value;
      const identityStatus = async () => (await t().get(`/api/identity/external-identities/${res.body.id}/`).expect(200)).body.effective_status.value;
      const listed = async (state: string) =>
        (await t().get(`/api/identity/external-identity-roles/?effective_status=${state}&source=noc`).expect(200)).body.results.map((r: Obj) => r.id);

      // Before validFrom: pending, no access, no group.
      expect(res.body.effective_status.value).toBe('pending');
      expect(await roleStatus()).toBe('pending');
      expect(await listed('pending')).toEqual([rid]);
      expect((await user(uid)).is_active).toBe(false);
      expect((await t().get(LOCATIONS, token).expect(403)).body).toEqual({ detail: 'User inactive' });
      expect((await t().http.get(LOCATIONS).set('Cookie', cookie).expect(403)).body).toEqual({ detail: 'User inactive' });

      at('2030-06-30T23:59:59.999Z');
      expect(await roleStatus()).toBe('pending');
      await t().get(LOCATIONS, token).expect(403);

      // From validFrom on: active; the first request applies the group and the user's activity.
      at('2030-07-01T00:00:00Z');
      expect(await roleStatus()).toBe('active');
      expect(await identityStatus()).toBe('active');
      expect(await listed('active')).toEqual([rid]);
      expect(await listed('pending')).toEqual([]);
      expect((await t().get(LOCATIONS, token).expect(200)).body.count).toBeGreaterThan(0);
      await t().http.get(LOCATIONS).set('Cookie', cookie).expect(200);
      expect((await user(uid)).is_active).toBe(true);
      expect(await groupsOf(uid)).toEqual(['NOC']);
      expect((await t().get(`/api/users/groups/${groupId}/`).expect(200)).body.name).toBe('NOC');

      // Until validThrough (exclusive).
      at('2030-07-31T21:59:59.999Z');
      await t().get(LOCATIONS, token).expect(200);
      at('2030-07-31T22:00:00Z');
      expect(await roleStatus()).toBe('expired');
      expect(await identityStatus()).toBe('inactive');
      expect(await listed('expired')).toEqual([rid]);
      expect((await t().get(LOCATIONS, token).expect(403)).body).toEqual({ detail: 'User inactive' });
      expect((await t().http.get(LOCATIONS).set('Cookie', cookie).expect(403)).body).toEqual({ detail: 'User inactive' });
      expect((await user(uid)).is_active).toBe(false);
      expect(await groupsOf(uid)).toEqual([]);
      const actions = (await history(res.body.id)).results.map((e: Obj) => e.action);
      expect(actions).toEqual(['transition', 'transition', 'create']);

      // A new message with a later validThrough brings access back.
      at('2030-08-10T00:00:00Z');
      await put('noc', 'n1', person({ given: 'Radia', roles: [role('noc-1', 'noc', 'A', { validFrom: '2030-07-01T00:00:00Z', validThrough: '2031-01-01T00:00:00Z' })] })).expect(200);
      await t().get(LOCATIONS, token).expect(200);
    });

    it('cuts the access of a role that ends while another keeps the user active', async () => {
      await locationViewers('Ops Viewers');
      await aLocation();
      await source('two', { affiliation_groups: { ops: 'Ops Viewers', student: 'Two Students' } });
      const res = await put('two', 't1', person({ given: 'Frances', roles: [role('ops-1', 'ops', 'A', { validThrough: '2030-07-01T00:00:00Z' }), role('st-1', 'student')] })).expect(201);
      const uid = res.body.user.id;
      const manual = await t().post('/api/users/groups/', { name: 'Hand Made' }).expect(201);
      await t().patch(`/api/users/users/${uid}/`, { groups: [...(await user(uid)).groups.map((g: Obj) => g.id), manual.body.id] }).expect(200);
      const token = await tokenFor(t(), uid);
      await t().get(LOCATIONS, token).expect(200);
      at('2030-07-01T00:00:00Z');
      const denied = await t().get(LOCATIONS, token).expect(403);
      expect(denied.body).toEqual({ detail: 'You do not have permission to perform this action.' });
      await t().get('/api/identity/', token).expect(200);
      expect(await groupsOf(uid)).toEqual(['Hand Made', 'Two Students']);
      expect((await user(uid)).is_active).toBe(true);
    });

    it('applies new group maps of a source at its people\'s next authentication, taking back groups it no longer maps', async () => {
      const src = await source('remap', { affiliation_groups: { staff: 'Remap Old' }, role_groups: { keep: 'Remap Kept' } });
      const res = await put('remap', 'r1', person({ given: 'Edsger', roles: [role('keep', 'staff')] })).expect(201);
      const uid = res.body.user.id;
      const manual = await t().post('/api/users/groups/', { name: 'Remap Manual' }).expect(201);
      await t().patch(`/api/users/users/${uid}/`, { groups: [...(await user(uid)).groups.map((g: Obj) => g.id), manual.body.id] }).expect(200);
      expect(await groupsOf(uid)).toEqual(['Remap Kept', 'Remap Manual', 'Remap Old']);
      const token = await tokenFor(t(), uid);
      at('2030-06-02T00:00:00Z');
      await t().patch(`/api/identity/sources/${src.id}/`, { affiliation_groups: { staff: 'Remap New' } }).expect(200);
      expect(await checkAfter(uid)).toBe('2030-06-02T00:00:00.000Z');
      await t().get('/api/identity/', token).expect(200);
      expect(await checkAfter(uid)).toBeNull();
      expect(await groupsOf(uid)).toEqual(['Remap Kept', 'Remap Manual', 'Remap New']);
      const h = await history(res.body.id);
      expect(h.results[0]).toMatchObject({ action: 'transition', changes: { groups: { added: ['Remap New'], removed: ['Remap Old'] } } });
      await t().get('/api/identity/', token).expect(200);
      expect((await history(res.body.id)).count).toBe(h.count);
      await t().patch(`/api/identity/sources/${src.id}/`, { affiliation_groups: {}, role_groups: {} }).expect(200);
      await put('remap', 'r1', person({ given: 'Edsger', family: 'Dijkstra', roles: [role('keep', 'staff')] })).expect(200);
      expect(await groupsOf(uid)).toEqual(['Remap Manual']);
    });

    it('asks the identities about a user at authentication only when the answer can change', async () => {
      const viewers = await locationViewers('Sched Viewers');
      await aLocation();
      await source('sched', { affiliation_groups: { staff: 'Sched Viewers' } });
      const cost = (token: string) => t().countStatements(() => t().get(`${LOCATIONS}?limit=1`, token).expect(200));
      // What a request costs a user that no identity governs, with the same permissions.
      const plain = await createUser(t(), 'sched-plain', { groups: [viewers] });
      const base = await cost(await tokenFor(t(), plain));

      // Roles active with nothing pending: never asked, so an administrator's deactivation holds.
      const open = (await put('sched', 'o1', person({ given: 'Olga', roles: [role('staff-1', 'staff')] })).expect(201)).body;
      const openToken = await tokenFor(t(), open.user.id);
      expect(await checkAfter(open.user.id)).toBeNull();
      expect(await cost(openToken)).toBe(base);
      await t().patch(`/api/users/users/${open.user.id}/`, { is_active: false }).expect(200);
      expect((await t().get(LOCATIONS, openToken).expect(403)).body).toEqual({ detail: 'User inactive' });
      await put('sched', 'o1', person({ given: 'Olga', family: 'Taussky', roles: [role('staff-1', 'staff')] })).expect(200);
      expect((await t().get(LOCATIONS, openToken).expect(403)).body).toEqual({ detail: 'User inactive' });

      // A pending transition: asked from its instant on, and then scheduled for the next one.
      const roles = [role('staff-1', 'staff', 'A', { validThrough: '2030-06-10T00:00:00Z' }), role('staff-2', 'staff', 'A', { validFrom: '2030-06-05T00:00:00Z', validThrough: '2030-06-20T00:00:00Z' })];
      const emil = (await put('sched', 'e1', person({ given: 'Emil', roles })).expect(201)).body;
      const uid = emil.user.id;
      const token = await tokenFor(t(), uid);
      expect(await checkAfter(uid)).toBe('2030-06-05T00:00:00.000Z');
      expect(await cost(token)).toBe(base);
      at('2030-06-04T23:59:59.999Z');
      expect(await cost(token)).toBe(base);
      at('2030-06-05T00:00:00Z');
      await t().get(LOCATIONS, token).expect(200);
      expect(await checkAfter(uid)).toBe('2030-06-10T00:00:00.000Z');
      expect(await cost(token)).toBe(base);
      at('2030-06-10T00:00:00Z');
      await t().get(LOCATIONS, token).expect(200);
      expect(await checkAfter(uid)).toBe('2030-06-20T00:00:00.000Z');

      // The last role ends with no new message: refused at that instant, then asked every time,
      // so setting is_active again by hand does not bring access back.
      at('2030-06-19T23:59:59.999Z');
      await t().get(LOCATIONS, token).expect(200);
      at('2030-06-20T00:00:00Z');
      expect((await t().get(LOCATIONS, token).expect(403)).body).toEqual({ detail: 'User inactive' });
      expect(await checkAfter(uid)).toBe('1970-01-01T00:00:00.000Z');
      expect((await user(uid)).is_active).toBe(false);
      await t().patch(`/api/users/users/${uid}/`, { is_active: true }).expect(200);
      expect((await t().get(LOCATIONS, token).expect(403)).body).toEqual({ detail: 'User inactive' });
      expect((await history(emil.id)).results.map((e: Obj) => e.action)).toEqual(['transition', 'transition', 'transition', 'create']);

      // A new message with a role that grants access: back to never asking.
      await put('sched', 'e1', person({ given: 'Emil', roles: [role('staff-3', 'staff')] })).expect(200);
      expect(await checkAfter(uid)).toBeNull();
      expect(await cost(token)).toBe(base);
      // A schedule that does not match the identities (set by hand) is repaired when it comes.
      await t().db.execute(sql`UPDATE ${ident('users_user')} SET ${ident('status_check_after')} = ${new Date('2030-06-01T00:00:00Z')} WHERE ${ident('id')} = ${uid}`);
      await t().get(LOCATIONS, token).expect(200);
      expect(await checkAfter(uid)).toBeNull();
    });

    it('keeps one user for a person that two sources send, with the groups of both, active while either grants access', async () => {
      await source('ms-hr', { affiliation_groups: { staff: 'MS Staff' } });
      await source('ms-sis', { affiliation_groups: { student: 'MS Students' } });
      const hr = await put('ms-hr', 'x', person({ given: 'Lin', roles: [role('s', 'staff', 'A', { validThrough: '2030-07-01T00:00:00Z' })] })).expect(201);
      const sis = await put('ms-sis', 'y', person({ given: 'Lin', roles: [role('st', 'student')] })).expect(201);
      const uid = hr.body.user.id;
      expect(sis.body.user.id).toBe(uid);
      expect((await history(sis.body.id)).results[0].changes.user).toMatchObject({ action: 'linked', username: 'lin@example.org' });
      expect(await groupsOf(uid)).toEqual(['MS Staff', 'MS Students']);
      const token = await tokenFor(t(), uid);
      at('2030-07-01T00:00:00Z');
      await t().get('/api/identity/', token).expect(200);
      expect(await groupsOf(uid)).toEqual(['MS Students']);
      expect((await history(hr.body.id)).results[0]).toMatchObject({ action: 'transition', changes: { groups: { added: [], removed: ['MS Staff'] } } });
      await t().del(intake('ms-sis', 'y')).expect(204);
      expect((await t().get('/api/identity/', token).expect(403)).body).toEqual({ detail: 'User inactive' });
      expect(await groupsOf(uid)).toEqual([]);
    });

    it('marks an identity deleted (204), ends its access, and revives it with a new message', async () => {
      await source('del', { affiliation_groups: { staff: 'Del Staff' } });
      const res = await put('del', 'd1', person({ given: 'Katherine', roles: [role('staff-1', 'staff'), role('dup', 'staff', 'D2')] })).expect(201);
      const uid = res.body.user.id;
      const token = await tokenFor(t(), uid);
      await t().get('/api/identity/', token).expect(200);
      const before = (await history(res.body.id)).count;
      const del = await t().del(intake('del', 'd1')).expect(204);
      expect(del.text).toBe('');
      const got = await t().get(intake('del', 'd1')).expect(200);
      expect(got.body).toMatchObject({ status: { value: 'D' }, effective_status: { value: 'deleted' } });
      expect(got.body.roles.map((r: Obj) => r.status.value).sort()).toEqual(['D', 'D2']);
      expect((await t().get('/api/identity/', token).expect(403)).body).toEqual({ detail: 'User inactive' });
      expect(await groupsOf(uid)).toEqual([]);
      const h = await history(res.body.id);
      expect(h.count).toBe(before + 1);
      expect(h.results[0].action).toBe('delete');
      expect(h.results[0].changes.identity).toEqual({ status: { old: 'A', new: 'D' }, effective_status: { old: 'active', new: 'deleted' } });
      await t().del(intake('del', 'd1')).expect(204);
      expect((await history(res.body.id)).count).toBe(before + 1);
      expect((await t().del(intake('del', 'nobody')).expect(404)).body).toEqual({ detail: 'No ExternalIdentity matches the given query.' });
      const back = await put('del', 'd1', person({ given: 'Katherine', roles: [role('staff-1', 'staff')] })).expect(200);
      expect(back.body).toMatchObject({ status: { value: 'A' }, effective_status: { value: 'active' } });
      await t().get('/api/identity/', token).expect(200);
      expect(await groupsOf(uid)).toEqual(['Del Staff']);
    });

    it('creates one identity when the first messages for a person arrive at the same moment', async () => {
      await source('race', { affiliation_groups: { staff: 'Race Staff' } });
      const results = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => put('race', 'same-person', person({ given: 'Race', family: `Try${i}` }))));
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      const ids = new Set(results.map((r) => r.body.id));
      expect(ids.size).toBe(1);
      expect((await t().get('/api/identity/external-identities/?source=race').expect(200)).body.count).toBe(1);
      expect((await t().get('/api/users/users/?username=race@example.org').expect(200)).body.count).toBe(1);
      expect((await history([...ids][0])).results.map((e: Obj) => e.action)).toEqual(['update', 'update', 'update', 'update', 'update', 'create']);
      // Two sources creating the same user and the same new group at once.
      await t().patch(`/api/identity/sources/${(await t().get('/api/identity/sources/?slug=race').expect(200)).body.results[0].id}/`, { role_groups: { twin: 'Twin Group' } }).expect(200);
      await source('race-2', { role_groups: { twin: 'Twin Group' } });
      const twins = await Promise.all(['race', 'race-2'].map((slug) => put(slug, 'twin', person({ given: 'Twin', roles: [role('twin', 'staff')] }))));
      expect(twins.map((r) => r.status)).toEqual([201, 201]);
      expect(twins[0].body.user.id).toBe(twins[1].body.user.id);
      expect(await groupsOf(twins[0].body.user.id)).toEqual(['Race Staff', 'Twin Group']);
    });

    it('answers an unknown source with 404 and a disabled source with 409, storing nothing', async () => {
      const before = await counts();
      expect((await put('nope', 'x', person()).expect(404)).body).toEqual({ detail: 'No IdentitySource matches the given query.' });
      await t().get(intake('nope', 'x')).expect(404);
      const off = await source('off', { enabled: false });
      const r = await put('off', 'x', person()).expect(409);
      expect(r.body).toEqual({ detail: 'The identity source "off" is disabled; it accepts no messages.' });
      await t().del(intake('off', 'x')).expect(409);
      expect(await counts()).toEqual({ ...before, history: before.history });
      await t().patch(`/api/identity/sources/${off.id}/`, { enabled: true }).expect(200);
      await put('off', 'x', person({ given: 'Ida' })).expect(201);
      await t().del(`/api/identity/sources/${off.id}/`).expect(409);
    });

    it('needs identity.change_externalidentity to write, honours its constraints, and refuses read-only tokens', async () => {
      await source('perm-a');
      await source('perm-b');
      const svc = await createUser(t(), 'svc-hr');
      const token = await tokenFor(t(), svc);
      const readOnly = await tokenFor(t(), svc, false);
      const anonymous = await t().http.put(intake('perm-a', 'x')).send(person()).expect(403);
      expect(anonymous.body).toEqual({ detail: 'Authentication credentials were not provided.' });
      expect((await put('perm-a', 'x', person(), token).expect(403)).body).toEqual({ detail: 'You do not have permission to perform this action.' });
      await t()
        .post('/api/users/permissions/', { name: 'svc writes perm-a', object_types: ['identity.externalidentity'], actions: ['change'], users: [svc], constraints: { source__slug: 'perm-a' } })
        .expect(201);
      await put('perm-a', 'x', person({ given: 'Ada' }), token).expect(201);
      await put('perm-a', 'x', person({ given: 'Ada' }), readOnly).expect(403);
      const before = await counts();
      await put('perm-b', 'x', person({ given: 'Eve' }), token).expect(403);
      await t().del(intake('perm-b', 'x'), undefined, token).expect(404);
      expect(await counts()).toEqual(before);
      await t().get(intake('perm-a', 'x'), token).expect(403);
      const h = await history((await t().get(intake('perm-a', 'x')).expect(200)).body.id);
      expect(h.results[0]).toMatchObject({ user: { id: svc, object_type: 'users.user' }, user_name: 'svc-hr' });
      await t().del(intake('perm-a', 'x'), undefined, token).expect(204);
      // A constraint names the source as the filter does (by slug here), whether or not the
      // writer may view sources; one naming no source grants nothing. The roles' source filter
      // reaches through the identity.
      const svcB = await createUser(t(), 'svc-b');
      const tokenB = await tokenFor(t(), svcB);
      const constraints = [{ source: 'perm-b' }, { source: 'no-such-source' }];
      await t().post('/api/users/permissions/', { name: 'svc-b writes perm-b', object_types: ['identity.externalidentity'], actions: ['change', 'view'], users: [svcB], constraints }).expect(201);
      await t().post('/api/users/permissions/', { name: 'svc-b reads perm-b roles', object_types: ['identity.externalidentityrole'], actions: ['view'], users: [svcB], constraints }).expect(201);
      await put('perm-b', 'y', person({ given: 'Bo', roles: [role('b-1', 'staff')] }), tokenB).expect(201);
      await put('perm-a', 'y', person({ given: 'Bo' }), tokenB).expect(403);
      await put('perm-a', 'z', person({ given: 'Cy', roles: [role('a-1', 'staff')] })).expect(201);
      const seen = (await t().get('/api/identity/external-identities/?limit=100', tokenB).expect(200)).body.results.map((r: Obj) => r.sor_id);
      expect(seen).toEqual(['y']);
      const seenRoles = (await t().get('/api/identity/external-identity-roles/?limit=100', tokenB).expect(200)).body.results.map((r: Obj) => r.role_identifier);
      expect(seenRoles).toEqual(['b-1']);
    });

    it('rolls everything back when the write ends outside the writer\'s permissions', async () => {
      await source('scoped', { affiliation_groups: { staff: 'Scoped Staff' } });
      const svc = await createUser(t(), 'svc-scoped');
      const token = await tokenFor(t(), svc);
      await t()
        .post('/api/users/permissions/', { name: 'svc scoped', object_types: ['identity.externalidentity'], actions: ['change'], users: [svc], constraints: { sor_id__isw: 'ok-' } })
        .expect(201);
      const before = await counts();
      await put('scoped', 'bad-1', person({ given: 'Mallory' }), token).expect(403);
      expect(await counts()).toEqual(before);
      expect((await t().get('/api/users/users/?username=mallory@example.org').expect(200)).body.count).toBe(0);
      await put('scoped', 'ok-1', person({ given: 'Trent' }), token).expect(201);
      expect((await counts()).groups).toBe(before.groups + 1);
    });

    it('refuses every malformed message of the corpus with a 400 naming the path, storing nothing', async () => {
      await source('strict');
      const before = await counts();
      for (const c of MALFORMED) {
        // A bare JSON string would otherwise be sent as a form.
        const res = typeof c.body === 'string' ? await put('strict', 'bad', JSON.stringify(c.body)).set('Content-Type', 'application/json') : await put('strict', 'bad', c.body);
        expect([c.name, res.status]).toEqual([c.name, 400]);
        expect(Object.keys(res.body)).toContain(c.path);
      }
      const x = person({ roles: [role('a', 'staff'), role('b', 'staff', 'X')] });
      expect((await put('strict', 'bad', x).expect(400)).body).toEqual({ 'sorAttributes.roles[1].status': ['"X" is not one of A, D, D2, GP, S.'] });
      const json = await t().http.put(intake('strict', 'bad')).set('Authorization', `Token ${t().token}`).set('Content-Type', 'application/json').send('{"sorAttributes": ');
      expect(json.status).toBe(400);
      expect(json.body.detail).toMatch(/^JSON parse error/);
      await t().http.put(intake('strict', 'bad')).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send('a,b').expect(415);
      await t().http.put(intake('strict', 'bad')).set('Authorization', `Token ${t().token}`).expect(400);
      expect(await counts()).toEqual(before);
      await t().get(intake('strict', 'bad')).expect(404);
      // An unknown source reads like an unknown identity: no source slugs to discover.
      const unknown = await t().get(intake('no-such-source', 'bad')).expect(404);
      expect(unknown.body).toEqual((await t().get(intake('strict', 'bad')).expect(404)).body);
    });

    it('limits the size of a message (413) and the length of sor_id (400)', async () => {
      await source('big');
      const before = await counts();
      const huge = person({ extra: { adhoc: [{ tag: 'blob', value: 'x'.repeat(70 * 1024) }] } });
      const res = await put('big', 'b1', huge).expect(413);
      expect(res.body.detail).toMatch(/^An identity message may be at most 65536 bytes/);
      expect((await put('big', 's'.repeat(256), person()).expect(400)).body).toEqual({ sor_id: ['Ensure this field has no more than 255 characters.'] });
      // "p1" and "p1 " would be one identity on MariaDB and two on PostgreSQL: neither is stored.
      expect((await put('big', 'p1 ', person()).expect(400)).body).toEqual({ sor_id: ['Must not begin or end with white space.'] });
      expect((await put('big', 'p1\u0001x', person()).expect(400)).body).toEqual({ sor_id: ['Control characters are not allowed.'] });
      expect(await counts()).toEqual(before);
      await t().post(intake('big', 'b1'), person()).expect(405);
      await t().patch(intake('big', 'b1'), person()).expect(405);
    });

    it('links an existing user by username or by email, never a superuser, and refuses an unusable username', async () => {
      await source('link', { username_identifier_type: 'employeeNumber' });
      const existing = await createUser(t(), 'E777', { password: 'a-long-password-1', email: 'old@example.org' });
      const byName = await put('link', 'l1', person({ given: 'Mary', employeeNumber: 'E777' })).expect(201);
      expect(byName.body.user.id).toBe(existing);
      const c = (await history(byName.body.id)).results[0].changes.user;
      expect(c).toMatchObject({ action: 'linked', username: 'E777', fields: { email: { old: 'old@example.org', new: 'mary@example.org' } } });
      const byEmail = await createUser(t(), 'shared-person', { email: 'Shared@Example.org' });
      const viaEmail = await put('link', 'l2', person({ given: 'Shared', email: 'shared@example.org' })).expect(201);
      expect(viaEmail.body.user.id).toBe(byEmail);
      await createUser(t(), 'root2', { is_superuser: true, email: 'root@example.org' });
      const before = await counts();
      const su = await put('link', 'l3', person({ given: 'Root', email: 'root@example.org' })).expect(409);
      expect(su.body).toEqual({ detail: 'The user "root2" is a superuser; an identity source may not manage a superuser\'s access.' });
      const bad = await put('link', 'l4', person({ given: 'Space', employeeNumber: 'has space' })).expect(400);
      expect(bad.body).toEqual({ 'sorAttributes.identifiers[0].identifier': ['"has space" cannot be a username: at most 150 letters, digits and @/./+/-/_ characters.'] });
      expect(await counts()).toEqual(before);
      // The service account that writes the messages cannot be taken over by one.
      const svcToken = await t().userWith('intake-svc', [{ types: ['identity.externalidentity'], actions: ['view', 'change'] }]);
      const svc = (await t().get('/api/users/users/?username=intake-svc').expect(200)).body.results[0];
      await t().patch(`/api/users/users/${svc.id}/`, { email: 'svc@example.org' }).expect(200);
      const self = await put('link', 'l6', person({ given: 'Svc', email: 'svc@example.org' }), svcToken).expect(409);
      expect(self.body.detail).toMatch(/^The user "intake-svc" is sending this message/);
      const none = await put('link', 'l5', { sorAttributes: { identifiers: [{ identifier: 'x-1', type: 'other' }], roles: [role('r', 'staff')] } }).expect(201);
      expect(none.body.user).toBeNull();
      expect(none.body.effective_status.value).toBe('active');
    });

    it('filters identities and roles by source, sor_id, identifier, email, affiliation, status, effective_status and user', async () => {
      const src = await source('filt', { username_identifier_type: 'employeeNumber' });
      await source('filt-other');
      const a = (await put('filt', 'f1', person({ given: 'Anna', employeeNumber: 'F1', email: 'Anna@Example.org', roles: [role('s1', 'staff')] })).expect(201)).body;
      const b = (await put('filt', 'f2', person({ given: 'Bert', employeeNumber: 'F2', roles: [role('st1', 'student', 'S')] })).expect(201)).body;
      const c = (await put('filt', 'f3', person({ given: 'Cora', employeeNumber: 'F3', roles: [role('s3', 'staff', 'A', { validFrom: '2031-01-01T00:00:00Z' })] })).expect(201)).body;
      await put('filt-other', 'f1', person({ given: 'Dirk', employeeNumber: 'F9' })).expect(201);
      await t().del(intake('filt', 'f2')).expect(204);
      const ids = async (q: string) => ((await t().get(`/api/identity/external-identities/?${q}&limit=100`).expect(200)).body.results as Obj[]).map((r) => r.sor_id).sort();
      const roles = async (q: string) => ((await t().get(`/api/identity/external-identity-roles/?${q}&limit=100`).expect(200)).body.results as Obj[]).map((r) => r.role_identifier).sort();
      expect(await ids('source=filt')).toEqual(['f1', 'f2', 'f3']);
      expect(await ids(`source=${src.id}`)).toEqual(['f1', 'f2', 'f3']);
      expect(await ids('source=Source%20filt')).toEqual(['f1', 'f2', 'f3']);
      expect(await ids('sor_id=f1')).toEqual(['f1', 'f1']);
      expect(await ids('source=filt&source__n=filt-other&sor_id=f1')).toEqual(['f1']);
      expect(await ids('identifier=F2')).toEqual(['f2']);
      expect(await ids('identifier__ic=f')).toEqual(['f1', 'f1', 'f2', 'f3']);
      expect(await ids('email=anna@example.ORG')).toEqual(['f1']);
      expect(await ids('source=filt&affiliation=staff')).toEqual(['f1', 'f3']);
      expect(await ids('source=filt&status=D')).toEqual(['f2']);
      expect(await ids('source=filt&effective_status=active')).toEqual(['f1']);
      expect(await ids('source=filt&effective_status=pending')).toEqual(['f3']);
      expect(await ids('source=filt&effective_status=deleted')).toEqual(['f2']);
      expect(await ids('source=filt&effective_status__n=active')).toEqual(['f2', 'f3']);
      expect(await ids(`user=${a.user.id}`)).toEqual(['f1']);
      expect(await ids('user=F3')).toEqual(['f3']);
      expect(await roles('source=filt')).toEqual(['s1', 's3', 'st1']);
      expect(await roles('source=filt&sor_id=f1')).toEqual(['s1']);
      expect(await roles('identifier=F3')).toEqual(['s3']);
      expect(await roles('email=ANNA@example.org')).toEqual(['s1']);
      expect(await roles('source=filt&affiliation=student')).toEqual(['st1']);
      expect(await roles('source=filt&status=D')).toEqual(['st1']);
      expect(await roles('source=filt&effective_status=deleted')).toEqual(['st1']);
      expect(await roles('source=filt&effective_status=pending&effective_status=active')).toEqual(['s1', 's3']);
      expect(await roles(`user=${b.user.id}`)).toEqual(['st1']);
      expect(await roles(`identity=${c.id}`)).toEqual(['s3']);
      const bad = await t().get('/api/identity/external-identities/?effective_status=sleeping').expect(400);
      expect(bad.body).toEqual({ effective_status: ['Select a valid choice. sleeping is not one of the available choices.'] });
      await t().get('/api/identity/external-identity-roles/?status=X').expect(400);
      // A source or user that does not exist is a 400, as for every foreign-key filter.
      for (const path of ['/api/identity/external-identities/', '/api/identity/external-identity-roles/']) {
        for (const key of ['source', 'source__n', 'user', 'user__n']) {
          const res = await t().get(`${path}?${key}=nowhere&source=filt`).expect(400);
          expect([path, res.body]).toEqual([path, { [key]: ['Select a valid choice. nowhere is not one of the available choices.'] }]);
        }
      }
      expect(await ids(`source=filt&source=${src.id}&source=Source%20filt-other`)).toEqual(['f1', 'f1', 'f2', 'f3']);
      await t().get('/api/identity/external-identities/?email__nie=x').expect(400);
    });

    it('agrees, at every boundary, between the effective_status shown and the effective_status filter', async () => {
      await source('agree', { grace_period_days: 1, status_on_delete: 'GP' });
      const windows: Obj[] = [
        role('a', 'x'),
        role('window', 'x', 'A', { validFrom: '2030-06-02T00:00:00Z', validThrough: '2030-06-03T00:00:00Z' }),
        role('gp', 'x', 'GP'),
        role('gp-window', 'x', 'GP', { validFrom: '2030-06-01T18:00:00Z' }),
        role('s', 'x', 'S'),
        role('d', 'x', 'D'),
        role('d2', 'x', 'D2'),
        role('ends', 'x', 'A', { validThrough: '2030-06-02T12:00:00Z' }),
      ];
      for (const [i, r] of windows.entries()) await put('agree', `w${i}`, person({ given: `W${i}`, email: '', roles: [r] })).expect(201);
      /** Each state's filter result is exactly the objects shown in that state. */
      const agree = async (path: string, states: string[], time: string) => {
        const all = (await t().get(`${path}?source=agree&limit=100`).expect(200)).body.results as Obj[];
        for (const state of states) {
          const filtered = ((await t().get(`${path}?source=agree&effective_status=${state}&limit=100`).expect(200)).body.results as Obj[]).map((r) => r.id).sort();
          expect([time, state, filtered]).toEqual([time, state, all.filter((r) => r.effective_status.value === state).map((r) => r.id).sort()]);
        }
      };
      for (const time of ['2030-06-01T12:00:00Z', '2030-06-01T18:00:00Z', '2030-06-02T00:00:00Z', '2030-06-02T11:59:59Z', '2030-06-02T12:00:00Z', '2030-06-03T00:00:00Z', '2030-06-04T00:00:00Z']) {
        at(time);
        await agree('/api/identity/external-identity-roles/', ['active', 'grace_period', 'pending', 'expired', 'suspended', 'deleted', 'duplicate'], time);
        await agree('/api/identity/external-identities/', ['active', 'pending', 'inactive', 'deleted'], time);
      }
      at('2030-06-01T12:00:00Z');
      const shown = ((await t().get('/api/identity/external-identity-roles/?source=agree&limit=100').expect(200)).body.results as Obj[]).map((r) => [r.role_identifier, r.effective_status.value]);
      expect(Object.fromEntries(shown)).toEqual({ a: 'active', window: 'pending', gp: 'grace_period', 'gp-window': 'pending', s: 'suspended', d: 'deleted', d2: 'duplicate', ends: 'active' });
    });

    it('serves depth, CSV, and a paginated history; unknown identities are 404', async () => {
      await source('read');
      const res = await put('read', 'r1', person({ given: 'Joan' })).expect(201);
      for (let i = 2; i <= 4; i++) {
        at(new Date(BASE.getTime() + i * DAY).toISOString());
        await put('read', 'r1', person({ given: `Joan${i}` })).expect(200);
      }
      const deep = await t().get(`/api/identity/external-identities/${res.body.id}/?depth=1`).expect(200);
      expect(deep.body.source).toMatchObject({ slug: 'read', name: 'Source read' });
      expect(deep.body.user).toMatchObject({ username: 'joan@example.org' });
      expect((await t().get(`${intake('read', 'r1')}?depth=1`).expect(200)).body.source.slug).toBe('read');
      await t().get(`${intake('read', 'r1')}?depth=11`).expect(400);
      const csv = await t().get('/api/identity/external-identities/?source=read&format=csv').expect(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      const [header, row] = csv.text.trim().split(/\r?\n/);
      expect(header.split(',')).toEqual(expect.arrayContaining(['sor_id', 'effective_status', 'source__slug', 'user__username']));
      expect(row).toContain('r1');
      const page = await t().get(`/api/identity/external-identities/${res.body.id}/history/?limit=2`).expect(200);
      expect(page.body.count).toBe(4);
      expect(page.body.results.map((e: Obj) => e.action)).toEqual(['update', 'update']);
      expect(page.body.next).toMatch(/\/history\/\?limit=2&offset=2$/);
      const last = await t().get(`/api/identity/external-identities/${res.body.id}/history/?limit=2&offset=2`).expect(200);
      expect(last.body.results.map((e: Obj) => e.action)).toEqual(['update', 'create']);
      expect(last.body.previous).toMatch(/\/history\/\?limit=2$/);
      await t().get('/api/identity/external-identities/00000000-0000-0000-0000-000000000000/history/').expect(404);
      await t().get('/api/identity/external-identities/00000000-0000-0000-0000-000000000000/history/', null).expect(403);
      const viewer = await createUser(t(), 'history-viewer');
      const vt = await tokenFor(t(), viewer);
      await t().get(`/api/identity/external-identities/${res.body.id}/history/`, vt).expect(403);
      await t()
        .post('/api/users/permissions/', { name: 'view other sources', object_types: ['identity.externalidentity'], actions: ['view'], users: [viewer], constraints: { source__slug: 'elsewhere' } })
        .expect(201);
      await t().get(`/api/identity/external-identities/${res.body.id}/history/`, vt).expect(404);
      await t().get(intake('read', 'r1'), vt).expect(404);
    });

    it('reads a page of identities or history in a bounded number of statements, whatever its size', async () => {
      await source('bulk', { affiliation_groups: { staff: 'Bulk Staff' } });
      await put('bulk', 'b0', person({ given: 'B0' })).expect(201);
      const one = await t().countStatements(() => t().get('/api/identity/external-identities/?source=bulk&depth=1').expect(200));
      const oneRoles = await t().countStatements(() => t().get('/api/identity/external-identity-roles/?source=bulk&depth=1').expect(200));
      for (let i = 1; i <= 6; i++) await put('bulk', `b${i}`, person({ given: `B${i}`, roles: [role('s', 'staff'), role('t', 'staff', 'GP')] })).expect(201);
      const many = await t().countStatements(() => t().get('/api/identity/external-identities/?source=bulk&depth=1').expect(200));
      const manyRoles = await t().countStatements(() => t().get('/api/identity/external-identity-roles/?source=bulk&depth=1').expect(200));
      expect(many).toBe(one);
      expect(manyRoles).toBe(oneRoles);
      const id = (await t().get(intake('bulk', 'b0')).expect(200)).body.id;
      const h1 = await t().countStatements(() => t().get(`/api/identity/external-identities/${id}/history/`).expect(200));
      for (let i = 1; i <= 5; i++) await put('bulk', 'b0', person({ given: `B0-${i}` })).expect(200);
      const h6 = await t().countStatements(() => t().get(`/api/identity/external-identities/${id}/history/`).expect(200));
      expect(h6).toBe(h1);
    });
  },
  // Statement counts here measure the identity checks, not whether a token was remembered.
  { clock: () => now, env: { CREDENTIAL_CACHE: 'false' } },
);

eachDatabase(
  'identity data under EXEMPT_VIEW_PERMISSIONS=*',
  (t) => {
    it('still needs a permission to read identities, their roles and history', async () => {
      await t().post('/api/identity/sources/', { name: 'Exempt', slug: 'exempt' }).expect(201);
      const res = await t().put(intake('exempt', 'e1'), person()).expect(201);
      const reader = (await t().post('/api/users/users/', { username: 'reader' }).expect(201)).body.id;
      const token = await tokenFor(t(), reader);
      await t().get('/api/identity/sources/', token).expect(200);
      for (const path of ['/api/identity/external-identities/', '/api/identity/external-identity-roles/', `/api/identity/external-identities/${res.body.id}/history/`, intake('exempt', 'e1')]) {
        await t().get(path, token).expect(403);
        await t().get(path, null).expect(403);
      }
    });
  },
  { env: { EXEMPT_VIEW_PERMISSIONS: '*' } },
);
