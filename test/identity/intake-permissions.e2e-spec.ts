import { eachDatabase } from '../../src/core/testing/harness';
import { createUser, tokenFor } from '../support/users';
import { MALFORMED } from './malformed-messages';
import { person, role } from './messages';
import { intake, intakeHelpers, Obj, testClock } from './intake-support';

const clock = testClock();

eachDatabase(
  'identity intake: permissions and refusals',
  (t) => {
    const { source, put, history, counts } = intakeHelpers(t);

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
      // Outside the constraint, a missing identity and another source's are alike: 404, nothing stored.
      const before = await counts();
      expect((await put('perm-b', 'x', person({ given: 'Eve' }), token).expect(404)).body).toEqual({ detail: 'No ExternalIdentity matches the given query.' });
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
      await put('perm-a', 'y', person({ given: 'Bo' }), tokenB).expect(404);
      await put('perm-a', 'z', person({ given: 'Cy', roles: [role('a-1', 'staff')] })).expect(201);
      const seen = (await t().get('/api/identity/external-identities/?limit=100', tokenB).expect(200)).body.results.map((r: Obj) => r.sor_id);
      expect(seen).toEqual(['y']);
      const seenRoles = (await t().get('/api/identity/external-identity-roles/?limit=100', tokenB).expect(200)).body.results.map((r: Obj) => r.role_identifier);
      expect(seenRoles).toEqual(['b-1']);
      // The roles' identity filters reach through the identities the reader may view only, as a
      // filter through a foreign key does: a hidden identity's attributes cannot be probed.
      const svcC = await createUser(t(), 'svc-c');
      const tokenC = await tokenFor(t(), svcC);
      await t().post('/api/users/permissions/', { name: 'svc-c reads every role', object_types: ['identity.externalidentityrole'], actions: ['view'], users: [svcC] }).expect(201);
      await t().post('/api/users/permissions/', { name: 'svc-c reads perm-b identities', object_types: ['identity.externalidentity'], actions: ['view'], users: [svcC], constraints: { source: 'perm-b' } }).expect(201);
      const rolesOf = async (q: string) => ((await t().get(`/api/identity/external-identity-roles/?limit=100&${q}`, tokenC).expect(200)).body.results as Obj[]).map((r) => r.role_identifier).sort();
      expect(await rolesOf('')).toEqual(expect.arrayContaining(['a-1', 'b-1']));
      expect(await rolesOf('sor_id=y')).toEqual(['b-1']);
      expect(await rolesOf('sor_id=z')).toEqual([]);
    });

    it('rolls everything back when the write ends outside the writer\'s permissions', async () => {
      await source('scoped', { affiliation_groups: { staff: 'Scoped Staff' } });
      const svc = await createUser(t(), 'svc-scoped');
      const token = await tokenFor(t(), svc);
      const constraints = { sor_id__isw: 'ok-', name__isw: 'T' };
      await t().post('/api/users/permissions/', { name: 'svc scoped', object_types: ['identity.externalidentity'], actions: ['change'], users: [svc], constraints }).expect(201);
      const before = await counts();
      // A new identity outside the scope reads as a missing one (404), and nothing is stored.
      await put('scoped', 'bad-1', person({ given: 'Tara' }), token).expect(404);
      await put('scoped', 'ok-0', person({ given: 'Mallory' }), token).expect(404);
      expect(await counts()).toEqual(before);
      expect((await t().get('/api/users/users/?username=mallory@example.org').expect(200)).body.count).toBe(0);
      await put('scoped', 'ok-1', person({ given: 'Trent' }), token).expect(201);
      expect((await counts()).groups).toBe(before.groups + 1);
      // An identity in scope that a message would take out of it: 403, and it stays as it was.
      const after = await counts();
      const trent = await t().get(intake('scoped', 'ok-1')).expect(200);
      expect((await put('scoped', 'ok-1', person({ given: 'Mallory' }), token).expect(403)).body).toEqual({ detail: 'You do not have permission to perform this action.' });
      expect(await counts()).toEqual(after);
      expect((await t().get(intake('scoped', 'ok-1')).expect(200)).body).toEqual(trent.body);
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
  },
  { clock: clock.now, env: { CREDENTIAL_CACHE: 'false' } },
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
