import { eachDatabase } from '../../src/core/testing/harness';

const text = (res: any, cb: (e: Error | null, body: string) => void) => {
  let s = '';
  res.setEncoding('utf8');
  res.on('data', (c: string) => (s += c));
  res.on('end', () => cb(null, s));
};

eachDatabase('CSV import and export', (t) => {
  const csvGet = (path: string) => t().get(path).buffer(true).parse(text);
  const csvSend = (method: 'post' | 'patch' | 'put', path: string, body: string) =>
    t().http[method](path).set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(body);

  it('round-trips a location tree with tags, tenants and custom fields through one file', async () => {
    const lt = (await t().post('/api/dcim/location-types/', { name: 'Area', nestable: true }).expect(201)).body;
    const tag = (await t().post('/api/extras/tags/', { name: 'edge', content_types: ['dcim.location'] }).expect(201)).body;
    const tag2 = (await t().post('/api/extras/tags/', { name: 'core backbone', content_types: ['dcim.location'] }).expect(201)).body;
    await t().post('/api/extras/custom-fields/', { label: 'Site code', key: 'site_code', type: 'text', content_types: ['dcim.location'] }).expect(201);
    const tenant = (await t().post('/api/tenancy/tenants/', { name: 'Acme, Inc.' }).expect(201)).body;
    const eu = (await t().post('/api/dcim/locations/', { name: 'EU', location_type: lt.id, status: 'Active', tags: [tag.id] }).expect(201)).body;
    const nl = (await t().post('/api/dcim/locations/', { name: 'NL', location_type: lt.id, status: 'Planned', parent: eu.id, tenant: tenant.id }).expect(201)).body;
    await t().post('/api/dcim/locations/', {
      name: 'AMS "1"', location_type: lt.id, status: 'Active', parent: nl.id, tenant: tenant.id, asn: 65001, latitude: '52.370216',
      comments: 'line one\nline two', tags: [tag.id, tag2.id], custom_fields: { site_code: 'AMS1' },
    }).expect(201);
    // a second "NL" elsewhere makes the natural key need its parent
    const us = (await t().post('/api/dcim/locations/', { name: 'US', location_type: lt.id, status: 'Active' }).expect(201)).body;
    await t().post('/api/dcim/locations/', { name: 'NL', location_type: lt.id, status: 'Active', parent: us.id }).expect(201);

    const before = (await t().get('/api/dcim/locations/?limit=100').expect(200)).body.results;
    const exported = await csvGet('/api/dcim/locations/?format=csv').expect(200);
    const header = exported.body.split('\n')[0];
    expect(header.startsWith('name,display,id,')).toBe(true);
    expect(header).toContain('parent__name,parent__parent__name');
    expect(header).toContain('location_type__name');
    expect(header).toContain('status__name');
    expect(header).toContain('tenant__name');
    expect(header.endsWith('tags,cf_site_code')).toBe(true);
    expect(exported.body).toContain('NoObject');
    expect(exported.body).toContain('"Acme, Inc."');
    expect(exported.body).toContain('"AMS ""1"""');
    expect(exported.body).toContain('"core backbone,edge"');

    // delete everything and import the file back: the same objects, ids and fields
    await t().del('/api/dcim/locations/', before.map((l: any) => ({ id: l.id }))).expect(204);
    const res = await csvSend('post', '/api/dcim/locations/', exported.body);
    expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
    const after = (await t().get('/api/dcim/locations/?limit=100').expect(200)).body.results;
    const norm = (l: any) => ({ ...l, created: undefined, last_updated: undefined });
    expect(after.map(norm)).toEqual(before.map(norm));
  });

  it('updates by id with PATCH and PUT on the list URL', async () => {
    const t1 = (await t().post('/api/tenancy/tenants/', [{ name: 'csv-a' }, { name: 'csv-b' }]).expect(201)).body;
    const res = await csvSend('patch', '/api/tenancy/tenants/', `id,description\n${t1[0].id},first\n${t1[1].id},second\n`).expect(200);
    expect(res.body.map((x: any) => x.description)).toEqual(['first', 'second']);
    await csvSend('patch', '/api/tenancy/tenants/', `id,description\n${t1[0].id},x\n00000000-0000-4000-8000-000000000000,y\n`).expect(400);
    expect((await t().get(`/api/tenancy/tenants/${t1[0].id}/`).expect(200)).body.description).toBe('first');
    await csvSend('patch', `/api/tenancy/tenants/${t1[1].id}/`, 'description\nvia detail\n').expect(200);
    expect((await t().get(`/api/tenancy/tenants/${t1[1].id}/`).expect(200)).body.description).toBe('via detail');
  });

  it('validates every row before saving any, naming the row', async () => {
    const res = await csvSend('post', '/api/tenancy/tenants/', 'name,tenant_group__name\nok-1,NULL\nok-2,No Such Group\n,NULL\n').expect(400);
    expect(res.body).toEqual({
      'row 3': { tenant_group: ["Related object not found using the provided attributes: {'name': 'No Such Group'}"] },
      'row 4': { name: ['This field may not be blank.'] },
    });
    expect((await t().get('/api/tenancy/tenants/?name__isw=ok-').expect(200)).body.count).toBe(0);
  });

  it('streams a long export in chunks with every row', async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => ({ name: `bulk-${String(i).padStart(5, '0')}` }));
    for (let i = 0; i < rows.length; i += 1000) await t().post('/api/tenancy/tenants/', rows.slice(i, i + 1000)).expect(201);
    const res = await csvGet('/api/tenancy/tenants/?format=csv&name__isw=bulk-').expect(200);
    const lines = res.body.trim().split('\n');
    expect(lines).toHaveLength(2501);
    expect(lines[1].startsWith('bulk-00000,')).toBe(true);
    expect(lines[2500].startsWith('bulk-02499,')).toBe(true);
    // deep pages (served through a sub-select of ids on MySQL/MariaDB) hold the right rows
    const deep = await t().get('/api/tenancy/tenants/?name__isw=bulk-&limit=100&offset=1200').expect(200);
    expect(deep.body.results.map((x: any) => x.name)).toEqual(Array.from({ length: 100 }, (_, i) => `bulk-${String(1200 + i).padStart(5, '0')}`));
    const desc = await t().get('/api/tenancy/tenants/?name__isw=bulk-&sort=-name&limit=3&offset=2497').expect(200);
    expect(desc.body.results.map((x: any) => x.name)).toEqual(['bulk-00002', 'bulk-00001', 'bulk-00000']);
  });
});
