import { tokenFor } from '../support/users';
import { ADMIN_PASSWORD, eachDatabase } from '../../src/core/testing/harness';

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

eachDatabase('authentication', (t) => {
  it('provisions a token with HTTP Basic credentials (spec 5.7)', async () => {
    const res = await t().http.post('/api/users/tokens/').set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(201);
    expect(res.body.key).toMatch(/^[0-9a-f]{40}$/);
    expect(res.body).toMatchObject({ write_enabled: true, expires: null, description: '' });
    // the new key works, and a later read shows it masked
    const list = await t().http.get('/api/users/tokens/').set('Authorization', `Token ${res.body.key}`).expect(200);
    const again = list.body.results.find((x: any) => x.id === res.body.id);
    expect(again.key).not.toBe(res.body.key);
    expect(again.key.endsWith(res.body.key.slice(-6))).toBe(true);
  });

  it('refuses bad Basic credentials with the reference message', async () => {
    const res = await t().http.post('/api/users/tokens/').set('Authorization', basic('admin', 'wrong')).expect(403);
    expect(res.body).toEqual({ detail: 'Invalid username/password.' });
    // Basic is not accepted elsewhere: it is treated as anonymous
    const other = await t().http.get('/api/dcim/locations/').set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(403);
    expect(other.body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('answers malformed token headers with the reference messages', async () => {
    expect((await t().http.get('/api/dcim/locations/').set('Authorization', 'Token').expect(403)).body).toEqual({ detail: 'Invalid token header. No credentials provided.' });
    expect((await t().http.get('/api/dcim/locations/').set('Authorization', 'Token a b').expect(403)).body).toEqual({
      detail: 'Invalid token header. Token string should not contain spaces.',
    });
    expect((await t().http.get('/api/dcim/locations/').set('Authorization', `tOkEn ${t().token}`).expect(200)).body.count).toBeDefined();
    expect((await t().http.get('/api/dcim/locations/').set('Authorization', 'Bearer xyz').expect(403)).body).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  it('lets a read-only token read but not write', async () => {
    const tok = (await t().post('/api/users/tokens/', { write_enabled: false }).expect(201)).body;
    await t().get('/api/dcim/locations/', tok.key).expect(200);
    const res = await t().post('/api/tenancy/tenants/', { name: 'nope' }, tok.key).expect(403);
    expect(res.body).toEqual({ detail: 'You do not have permission to perform this action.' });
    await t().http.head('/api/dcim/locations/').set('Authorization', `Token ${tok.key}`).expect(200);
    await t().options('/api/dcim/locations/', tok.key).expect(200);
    for (const method of ['put', 'patch', 'del'] as const) await t()[method]('/api/tenancy/tenants/', [], tok.key).expect(403);
  });

  it('grants a permission given to a group to every member, and only while a member', async () => {
    const group = (await t().post('/api/users/groups/', { name: 'tenant-readers' }).expect(201)).body;
    await t().post('/api/users/permissions/', { name: 'group-view-tenants', object_types: ['tenancy.tenant'], actions: ['view'], groups: [group.id] }).expect(201);
    const user = (await t().post('/api/users/users/', { username: 'grouped', password: 'grouped-password-1' }).expect(201)).body;
    const basic = `Basic ${Buffer.from('grouped:grouped-password-1').toString('base64')}`;
    await t().post('/api/users/permissions/', { name: 'grouped-tokens', object_types: ['users.token'], actions: ['add', 'view'], users: [user.id] }).expect(201);
    const key = (await t().http.post('/api/users/tokens/').set('Authorization', basic).expect(201)).body.key;
    await t().get('/api/tenancy/tenants/', key).expect(403);
    await t().patch(`/api/users/users/${user.id}/`, { groups: [group.id] }).expect(200);
    await t().get('/api/tenancy/tenants/', key).expect(200);
    await t().post('/api/tenancy/tenants/', { name: 'not-allowed' }, key).expect(403);
    await t().patch(`/api/users/users/${user.id}/`, { groups: [] }).expect(200);
    await t().get('/api/tenancy/tenants/', key).expect(403);
  });

  it('refuses an expired token', async () => {
    // Created valid (an already-expired token is a 400), then expired by its owner.
    const tok = (await t().post('/api/users/tokens/', { expires: '2099-01-01T00:00:00Z' }).expect(201)).body;
    await t().get('/api/dcim/locations/', tok.key).expect(200);
    await t().patch(`/api/users/tokens/${tok.id}/`, { expires: '2001-01-01T00:00:00Z' }).expect(200);
    expect((await t().get('/api/dcim/locations/', tok.key).expect(403)).body).toEqual({ detail: 'Token expired' });
  });

  it('refuses the token of an inactive user', async () => {
    const u = (await t().post('/api/users/users/', { username: 'leaver', password: 'a-long-password', is_superuser: true }).expect(201)).body;
    const tok = (await t().http.post('/api/users/tokens/').set('Authorization', basic('leaver', 'a-long-password')).expect(201)).body;
    await t().get('/api/dcim/locations/', tok.key).expect(200);
    await t().patch(`/api/users/users/${u.id}/`, { is_active: false }).expect(200);
    expect((await t().get('/api/dcim/locations/', tok.key).expect(403)).body).toEqual({ detail: 'User inactive' });
  });

  it("shows every user only their own tokens, superusers included", async () => {
    await t().post('/api/users/users/', { username: 'other', password: 'another-password', is_superuser: true }).expect(201);
    const theirs = (await t().http.post('/api/users/tokens/').set('Authorization', basic('other', 'another-password')).expect(201)).body;
    await t().get(`/api/users/tokens/${theirs.id}/`).expect(404);
    const mine = (await t().get('/api/users/tokens/?limit=1000').expect(200)).body.results;
    expect(mine.map((x: any) => x.id)).not.toContain(theirs.id);
    await t().del(`/api/users/tokens/${theirs.id}/`).expect(404);
  });

  it('never returns a password or its hash', async () => {
    const res = await t().post('/api/users/users/', { username: 'pw', password: 'super-secret-pw' }).expect(201);
    expect(res.body).not.toHaveProperty('password');
    expect(JSON.stringify((await t().get('/api/users/users/?limit=1000').expect(200)).body)).not.toMatch(/scrypt|super-secret-pw/);
  });
});

eachDatabase(
  'exempt view permissions for named models',
  (t) => {
    it('lets anyone read the named models, and nothing else, with or without a token', async () => {
      await t().get('/api/tenancy/tenants/', null).expect(200);
      await t().get('/api/dcim/location-types/', null).expect(200);
      expect((await t().get('/api/dcim/locations/', null).expect(403)).body).toEqual({ detail: 'Authentication credentials were not provided.' });
      await t().post('/api/tenancy/tenants/', { name: 'anon' }, null).expect(403);
      // A user with no permission at all reads the exempt models too, and only those.
      await t().post('/api/users/users/', { username: 'nobody', password: 'nobody-password-1' }).expect(201);
      const users = (await t().get('/api/users/users/?username=nobody').expect(200)).body.results;
      const key = await tokenFor(t(), users[0].id);
      await t().get('/api/tenancy/tenants/', key).expect(200);
      await t().get('/api/dcim/locations/', key).expect(403);
      await t().post('/api/tenancy/tenants/', { name: 'nobody' }, key).expect(403);
      // Users are never exempt, even when named.
      expect((await t().get('/api/users/users/', null).expect(403)).body).toEqual({ detail: 'Authentication credentials were not provided.' });
      await t().get('/api/users/users/', key).expect(403);
    });
  },
  { env: { EXEMPT_VIEW_PERMISSIONS: 'tenancy.tenant, dcim.locationtype,users.user' } },
);
