import { eachDatabase } from '../../src/core/testing/harness';

/**
 * `/api/users/config/`: a user's own preferences, as the reference's UserConfigViewSet serves
 * them: any authenticated user reads and merges into their own, and only their own.
 */
eachDatabase('user preferences', (t) => {
  it('reads and deep-merges the requester own preferences, and nobody else sees them', async () => {
    const root = (await t().get('/api/users/').expect(200)).body;
    expect(root.config).toMatch(/\/api\/users\/config\/$/);
    const alice = await t().userWith('pref-alice', []);
    const bob = await t().userWith('pref-bob', []);
    const as = (token: string) => ({ Authorization: `Token ${token}` });

    expect((await t().http.get('/api/users/config/').set(as(alice)).expect(200)).body).toEqual({});
    const first = await t().http.patch('/api/users/config/').set(as(alice)).send({ tables: { DeviceTable: { columns: ['name', 'status'] } }, theme: 'dark' }).expect(200);
    expect(first.body).toEqual({ tables: { DeviceTable: { columns: ['name', 'status'] } }, theme: 'dark' });
    const second = await t().http.patch('/api/users/config/').set(as(alice)).send({ tables: { LocationTable: { per_page: 100 } }, theme: 'light' }).expect(200);
    expect(second.body).toEqual({ tables: { DeviceTable: { columns: ['name', 'status'] }, LocationTable: { per_page: 100 } }, theme: 'light' });
    expect((await t().http.get('/api/users/config/').set(as(alice)).expect(200)).body).toEqual(second.body);
    // Bob has his own; the administrator reads Alice's through the users endpoint only.
    expect((await t().http.get('/api/users/config/').set(as(bob)).expect(200)).body).toEqual({});
    const aliceUser = (await t().get('/api/users/users/?username=pref-alice').expect(200)).body.results[0];
    expect(aliceUser.config_data).toEqual(second.body);
  });

  it('refuses what is not an object, anonymous requests and read-only tokens, changing nothing', async () => {
    const carol = await t().userWith('pref-carol', []);
    const as = { Authorization: `Token ${carol}` };
    await t().http.patch('/api/users/config/').set(as).send({ keep: true }).expect(200);
    // A `__proto__` key is a key like any other.
    const proto = await t().http.patch('/api/users/config/').set(as).set('Content-Type', 'application/json').send('{"__proto__": {"admin": true}}').expect(200);
    expect(proto.text).toBe('{"keep":true,"__proto__":{"admin":true}}');
    await t().http.patch('/api/users/config/').set(as).send({ keep: true }).expect(200);
    const list = await t().http.patch('/api/users/config/').set(as).send([1, 2]).expect(400);
    expect(list.body).toEqual({ detail: 'Expected a dictionary of items but got type "list".' });
    const text = await t().http.patch('/api/users/config/').set(as).set('Content-Type', 'application/json').send('"dark"').expect(400);
    expect(text.body).toEqual({ detail: 'Expected a dictionary of items but got type "str".' });
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    await t().http.patch('/api/users/config/').set(as).send({ deep }).expect(400);
    const anonymous = await t().http.get('/api/users/config/').expect(403);
    expect(anonymous.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    const readOnly = (await t().http.post('/api/users/tokens/').set(as).send({ write_enabled: false }).expect(201)).body.key;
    await t().http.patch('/api/users/config/').set({ Authorization: `Token ${readOnly}` }).send({ keep: false }).expect(403);
    expect((await t().http.get('/api/users/config/').set(as).expect(200)).text).toBe('{"keep":true,"__proto__":{"admin":true}}');
  });
});
