import { eachDatabase } from '../../src/core/testing/harness';

/**
 * `/api/extras/content-types/` as the reference serves it: read-only, any authenticated user,
 * integer ids that stay, `<app> | <verbose name>` displays, and the ContentTypeFilterSet filters.
 */
eachDatabase('content types', (t) => {
  const list = async (q: string, token?: string) => (await t().get(`/api/extras/content-types/?limit=0&${q}`, token).expect(200)).body;
  const types = async (q: string, token?: string) => (await list(q, token)).results.map((r: any) => `${r.app_label}.${r.model}`);

  it('lists every model once, ordered by app label and model, with stable integer ids', async () => {
    const all = await list('');
    const names = all.results.map((r: any) => `${r.app_label}.${r.model}`);
    expect(all.count).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['dcim.device', 'dcim.location', 'extras.computedfield', 'ipam.prefix', 'tenancy.tenant']));
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(names).size).toBe(names.length);
    const device = all.results.find((r: any) => r.model === 'device' && r.app_label === 'dcim');
    expect(device).toEqual({
      id: expect.any(Number),
      object_type: 'contenttypes.contenttype',
      display: 'DCIM | device',
      url: expect.stringMatching(new RegExp(`/api/extras/content-types/${device.id}/$`)),
      natural_slug: `dcim_device_${device.id}`,
      app_label: 'dcim',
      model: 'device',
    });
    expect(all.results.find((r: any) => r.model === 'tenant').display).toBe('Tenancy | tenant');
    expect((await t().get(`/api/extras/content-types/${device.id}/`).expect(200)).body).toEqual(device);
    expect((await t().get('/api/extras/content-types/999999/').expect(404)).body).toEqual({ detail: 'No ContentType matches the given query.' });
    await t().get('/api/extras/content-types/not-a-number/').expect(404);
    // Paginated like every list.
    const page = (await t().get('/api/extras/content-types/?limit=2&offset=2').expect(200)).body;
    expect(page.results.map((r: any) => r.id)).toEqual(all.results.slice(2, 4).map((r: any) => r.id));
    expect(page.next).toContain('offset=4');
    expect(page.previous).toContain('limit=2');
    // The API root lists it.
    expect((await t().get('/api/extras/').expect(200)).body['content-types']).toMatch(/\/api\/extras\/content-types\/$/);
  });

  it('filters as the reference ContentTypeFilterSet does', async () => {
    const all = (await list('')).results;
    const device = all.find((r: any) => r.app_label === 'dcim' && r.model === 'device');
    expect(await types('app_label=tenancy')).toEqual(['tenancy.tenant', 'tenancy.tenantgroup']);
    expect(await types('app_label=tenancy&model=tenant')).toEqual(['tenancy.tenant']);
    expect(await types('model=tenant&model=tenantgroup')).toEqual(['tenancy.tenant', 'tenancy.tenantgroup']);
    expect(await types(`id=${device.id}`)).toEqual(['dcim.device']);
    expect((await types(`id__n=${device.id}`)).length).toBe(all.length - 1);
    expect(await types(`id__gte=${device.id}&id__lte=${device.id}`)).toEqual(['dcim.device']);
    expect(await types('model__isw=tenantg')).toEqual(['tenancy.tenantgroup']);
    expect(await types('app_label__ie=TENANCY&model__nic=group')).toEqual(['tenancy.tenant']);
    expect(await types('q=tenantgr')).toEqual(['tenancy.tenantgroup']);
    expect(await types('feature=custom_fields')).toContain('dcim.device');
    expect(await types('feature=custom_fields')).not.toContain('extras.customfield');
    expect((await types('has_serializer=true')).length).toBe(all.length);
    expect((await t().get('/api/extras/content-types/?id=abc').expect(400)).body).toEqual({ id: ['Enter a number.'] });
    expect((await t().get('/api/extras/content-types/?no_such=1').expect(400)).body).toEqual({ no_such: ['Unknown filter field'] });
    await t().get('/api/extras/content-types/?model__re=(a%2B)%2B').expect(400);
  });

  it('answers what the requester may do, and is read-only for everyone', async () => {
    const reader = await t().userWith('ct-reader', [{ types: ['tenancy.tenant'], actions: ['view', 'change'] }]);
    expect(await types('can_view=true&app_label=tenancy', reader)).toEqual(['tenancy.tenant']);
    expect(await types('can_change=true&app_label=tenancy', reader)).toEqual(['tenancy.tenant']);
    expect(await types('can_delete=true&app_label=tenancy', reader)).toEqual([]);
    expect(await types('can_add=false&app_label=tenancy', reader)).toEqual(['tenancy.tenant', 'tenancy.tenantgroup']);
    expect((await types('can_delete=true')).length).toBe((await list('')).count);
    // Any authenticated user may list them; nobody may write.
    expect((await list('', reader)).count).toBeGreaterThan(50);
    await t().get('/api/extras/content-types/', null).expect(403);
    const r = await t().post('/api/extras/content-types/', { app_label: 'x', model: 'y' }).expect(405);
    expect(r.body).toEqual({ detail: 'Method "POST" not allowed.' });
    await t().del('/api/extras/content-types/1/').expect(405);
    await t().patch('/api/extras/content-types/1/', {}).expect(405);
  });
});
