import { eachDatabase } from '../../src/core/testing/harness';
import { ident, sql } from '../../src/database/sql';
import { createUser, sessionCookieFor, tokenFor } from '../support/users';
import { person, role } from './messages';
import { intakeHelpers, LOCATIONS, Obj, testClock } from './intake-support';

const clock = testClock();
const at = clock.at;

eachDatabase(
  'identity intake: access follows the roles',
  (t) => {
    const { source, put, user, groupsOf, history, locationViewers, checkAfter, aLocation } = intakeHelpers(t);

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
  },
  // Statement counts here measure the identity checks, not whether a token was remembered.
  { clock: clock.now, env: { CREDENTIAL_CACHE: 'false' } },
);
