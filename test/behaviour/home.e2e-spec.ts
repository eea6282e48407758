import { eachDatabase } from '../../src/core/testing/harness';

/** GET /api/home/: the counts a home page shows, only of what the requester may view. */
eachDatabase('home page counts', (t) => {
  it('counts every model for a superuser, and for a constrained user only the objects in scope', async () => {
    const type = (await t().post('/api/dcim/location-types/', { name: 'Home site' }).expect(201)).body;
    const mine = (await t().post('/api/tenancy/tenants/', { name: 'Home mine' }).expect(201)).body;
    for (const [name, tenant] of [['H1', mine.id], ['H2', mine.id], ['H3', null]]) {
      await t().post('/api/dcim/locations/', { name, location_type: type.id, status: 'Active', tenant }).expect(201);
    }
    const all = (await t().get('/api/home/').expect(200)).body;
    expect(Object.keys(all)).toEqual(expect.arrayContaining(['dcim', 'extras', 'ipam', 'tenancy', 'users']));
    expect(all.dcim).toContainEqual({ verbose_name_plural: 'locations', url: expect.stringMatching(/\/api\/dcim\/locations\/$/), count: 3 });
    expect(all.tenancy).toContainEqual(expect.objectContaining({ verbose_name_plural: 'tenants', count: 1 }));

    const tok = await t().userWith('home-reader', [{ types: ['dcim.location'], actions: ['view'], constraints: { tenant__name: 'Home mine' } }]);
    const scoped = (await t().get('/api/home/', tok).expect(200)).body;
    // Its own token is the one other thing it may view (every user may manage their tokens).
    expect(scoped.dcim).toEqual([{ verbose_name_plural: 'locations', url: expect.stringMatching(/\/api\/dcim\/locations\/$/), count: 2 }]);
    expect(Object.keys(scoped).sort()).toEqual(['dcim', 'users']);
    expect(scoped.users).toEqual([expect.objectContaining({ verbose_name_plural: 'tokens', count: 1 })]);
    await t().get('/api/home/', null).expect(403);
  });
});
