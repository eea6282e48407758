import { eachDatabase } from '../../src/core/testing/harness';
import { tokenFor } from '../support/users';
import { fullMessage, person, role } from './messages';
import { intake, intakeHelpers, Obj, testClock } from './intake-support';

const clock = testClock();
const at = clock.at;

eachDatabase(
  'identity intake',
  (t) => {
    const { source, put, user, groupsOf, history, counts } = intakeHelpers(t);

    it('lists the identity app at the API root, with its root listing its four endpoints', async () => {
      expect(Object.keys((await t().get('/api/').expect(200)).body)).toContain('identity');
      const root = await t().get('/api/identity/').expect(200);
      expect(Object.keys(root.body)).toEqual(['external-identities', 'external-identity-roles', 'sources', 'user-links']);
      const docs = await t().get('/api/swagger.json/').expect(200);
      expect(Object.keys(docs.body.paths)).toEqual(
        expect.arrayContaining([
          '/api/identity/sources/',
          '/api/identity/external-identities/{id}/',
          '/api/identity/external-identity-roles/',
          '/api/identity/sources/{slug}/identities/{sorId}/',
          '/api/identity/external-identities/{id}/history/',
          '/api/identity/user-links/',
        ]),
      );
      expect(Object.keys(docs.body.paths['/api/identity/sources/{slug}/identities/{sorId}/']).sort()).toEqual(['delete', 'get', 'put']);
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

    it('keeps one user for a person that two sources send (linked to both), with the groups of both, active while either grants access', async () => {
      await source('ms-hr', { affiliation_groups: { staff: 'MS Staff' } });
      const sisSource = await source('ms-sis', { affiliation_groups: { student: 'MS Students' } });
      const hr = await put('ms-hr', 'x', person({ given: 'Lin', roles: [role('s', 'staff', 'A', { validThrough: '2030-07-01T00:00:00Z' })] })).expect(201);
      const uid = hr.body.user.id;
      // The user is the first source's: the second links it once an administrator has linked it to that source.
      await put('ms-sis', 'y', person({ given: 'Lin', roles: [role('st', 'student')] })).expect(409);
      await t().post('/api/identity/user-links/', { source: sisSource.id, user: uid }).expect(201);
      const sis = await put('ms-sis', 'y', person({ given: 'Lin', roles: [role('st', 'student')] })).expect(201);
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
      // Two sources' people joining the same new group at once: one group.
      await t().patch(`/api/identity/sources/${(await t().get('/api/identity/sources/?slug=race').expect(200)).body.results[0].id}/`, { role_groups: { twin: 'Twin Group' } }).expect(200);
      await source('race-2', { role_groups: { twin: 'Twin Group' } });
      const pair = await Promise.all(['race', 'race-2'].map((slug, i) => put(slug, `pair-${i}`, person({ given: `Pair${i}`, roles: [role('twin', 'staff')] }))));
      expect(pair.map((r) => r.status)).toEqual([201, 201]);
      expect((await t().get('/api/users/groups/?name=Twin%20Group').expect(200)).body.count).toBe(1);
      expect(await groupsOf(pair[0].body.user.id)).toEqual(['Race Staff', 'Twin Group']);
      expect(await groupsOf(pair[1].body.user.id)).toEqual(['Twin Group']);
      // Two sources creating the same new user at once: the first creates it, the other may not take it over.
      const before = await counts();
      const twins = await Promise.all(['race', 'race-2'].map((slug) => put(slug, 'twin', person({ given: 'Twin', roles: [role('twin', 'staff')] }))));
      expect(twins.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(await counts()).toEqual({ ...before, identities: before.identities + 1, roles: before.roles + 1, users: before.users + 1, history: before.history + 1 });
      expect((await t().get('/api/users/users/?username=twin@example.org').expect(200)).body.count).toBe(1);
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
  },
  { clock: clock.now, env: { CREDENTIAL_CACHE: 'false' } },
);
