import { eachDatabase } from '../../src/core/testing/harness';
import { createUser, tokenFor } from '../support/users';
import { person, role } from './messages';
import { BASE, DAY, intake, intakeHelpers, Obj, testClock } from './intake-support';

const clock = testClock();
const at = clock.at;

eachDatabase(
  'identity intake: reading identities',
  (t) => {
    const { source, put } = intakeHelpers(t);

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
      // History is a view of the change log: the identity's records, read by whoever may view them.
      await t().post('/api/users/permissions/', { name: 'view read', object_types: ['identity.externalidentity'], actions: ['view'], users: [viewer], constraints: { source__slug: 'read' } }).expect(201);
      const refused = await t().get(`/api/identity/external-identities/${res.body.id}/history/`, vt).expect(403);
      expect(refused.body).toEqual({ detail: 'You do not have permission to perform this action.' });
      await t().post('/api/users/permissions/', { name: 'view changes', object_types: ['extras.objectchange'], actions: ['view'], users: [viewer] }).expect(201);
      const seen = (await t().get(`/api/identity/external-identities/${res.body.id}/history/?limit=10`, vt).expect(200)).body;
      expect(seen.results.map((e: Obj) => e.id)).toEqual([...page.body.results, ...last.body.results].map((e: Obj) => e.id));
      const records = (await t().get(`/api/extras/object-changes/?changed_object_id=${res.body.id}&limit=10`, vt).expect(200)).body;
      expect(records.results.map((r: Obj) => [r.id, r.action.value, r.changed_object_type])).toEqual(
        seen.results.map((e: Obj) => [e.id, e.action, 'identity.externalidentity']),
      );
      expect(records.results[0]).not.toHaveProperty('_detail');
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
  { clock: clock.now, env: { CREDENTIAL_CACHE: 'false' } },
);
