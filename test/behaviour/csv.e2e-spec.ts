import { parse } from 'csv-parse/sync';
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

  it('round-trips every custom field type and JSON fields exactly', async () => {
    const cf = (body: object) => t().post('/api/extras/custom-fields/', { content_types: ['tenancy.tenant'], ...body }).expect(201);
    await cf({ key: 'rt_text', label: 'RT text', type: 'text' });
    await cf({ key: 'rt_int', label: 'RT int', type: 'integer' });
    await cf({ key: 'rt_bool', label: 'RT bool', type: 'boolean' });
    await cf({ key: 'rt_date', label: 'RT date', type: 'date' });
    await cf({ key: 'rt_url', label: 'RT url', type: 'url' });
    await cf({ key: 'rt_json', label: 'RT json', type: 'json' });
    const sel = (await cf({ key: 'rt_sel', label: 'RT sel', type: 'select' })).body;
    const multi = (await cf({ key: 'rt_multi', label: 'RT multi', type: 'multi-select' })).body;
    for (const value of ['red', 'green', 'blue']) {
      await t().post('/api/extras/custom-field-choices/', { custom_field: sel.id, value }).expect(201);
      await t().post('/api/extras/custom-field-choices/', { custom_field: multi.id, value }).expect(201);
    }
    const values = [
      { rt_text: 'a, "quoted" text', rt_int: 42, rt_bool: false, rt_date: '2024-02-29', rt_url: 'https://example.com/x?a=1,2', rt_json: { n: 1, list: [1, 'two', null] }, rt_sel: 'green', rt_multi: ['red', 'blue'] },
      { rt_text: null, rt_int: null, rt_bool: true, rt_date: null, rt_url: null, rt_json: '5', rt_sel: null, rt_multi: ['green'] },
      { rt_text: 'x', rt_int: -7, rt_bool: null, rt_date: null, rt_url: null, rt_json: [{ a: 1 }, { b: 'c,d' }], rt_sel: 'red', rt_multi: [] },
    ];
    const made = (await t().post('/api/tenancy/tenants/', values.map((custom_fields, i) => ({ name: `cf-rt-${i}`, custom_fields }))).expect(201)).body;
    const perm = (await t().post('/api/users/permissions/', { name: 'csv-json', object_types: ['dcim.location'], actions: ['view', 'change'], constraints: [{ name: 'a,b' }, { tenant__name__isw: 'x' }] }).expect(201)).body;
    const before = (await t().get('/api/tenancy/tenants/?name__isw=cf-rt-').expect(200)).body.results;
    const permBefore = (await t().get(`/api/users/permissions/${perm.id}/`).expect(200)).body;

    const tenants = await csvGet('/api/tenancy/tenants/?format=csv&name__isw=cf-rt-').expect(200);
    const perms = await csvGet(`/api/users/permissions/?format=csv&id=${perm.id}`).expect(200);
    await t().del('/api/tenancy/tenants/', made.map((x: any) => ({ id: x.id }))).expect(204);
    await t().del(`/api/users/permissions/${perm.id}/`).expect(204);
    const r1 = await csvSend('post', '/api/tenancy/tenants/', tenants.body);
    expect({ status: r1.status, body: r1.status === 201 ? null : r1.body }).toEqual({ status: 201, body: null });
    const r2 = await csvSend('post', '/api/users/permissions/', perms.body);
    expect({ status: r2.status, body: r2.status === 201 ? null : r2.body }).toEqual({ status: 201, body: null });

    const norm = (o: any) => ({ ...o, created: undefined, last_updated: undefined });
    const after = (await t().get('/api/tenancy/tenants/?name__isw=cf-rt-').expect(200)).body.results;
    expect(after.map(norm)).toEqual(before.map(norm));
    expect(after.map((x: any) => x.custom_fields.rt_multi)).toEqual([['red', 'blue'], ['green'], []]);
    expect(after[1].custom_fields.rt_json).toBe('5');
    const permAfter = (await t().get(`/api/users/permissions/${perm.id}/`).expect(200)).body;
    expect(norm(permAfter)).toEqual(norm(permBefore));
  });

  it('exports the lists that are not a model\'s own as CSV too: notes, free space, identity history', async () => {
    const tenant = (await t().post('/api/tenancy/tenants/', { name: 'csv-noted' }).expect(201)).body;
    const other = (await t().post('/api/tenancy/tenants/', { name: 'csv-other' }).expect(201)).body;
    await t().post(`/api/tenancy/tenants/${tenant.id}/notes/`, { note: 'first, with a comma' }).expect(201);
    await t().post(`/api/tenancy/tenants/${other.id}/notes/`, { note: 'not this one' }).expect(201);
    const notes = await csvGet(`/api/tenancy/tenants/${tenant.id}/notes/?format=csv`).expect(200);
    expect(notes.headers['content-type']).toBe('text/csv; charset=UTF-8');
    expect(notes.headers['content-disposition']).toBe('attachment; filename="netkeel_note_data.csv"');
    expect(notes.body).toContain('"first, with a comma"');
    expect(notes.body).not.toContain('not this one');
    expect(notes.body.trim().split('\n')).toHaveLength(2);

    const p = (await t().post('/api/ipam/prefixes/', { prefix: '192.0.2.0/30', status: 'Active' }).expect(201)).body;
    const ips = await csvGet(`/api/ipam/prefixes/${p.id}/available-ips/`).set('Accept', 'text/csv').expect(200);
    expect(ips.headers['content-disposition']).toBe('attachment; filename="netkeel_availableip_data.csv"');
    expect(ips.body.trim().split('\n')).toEqual(['address,ip_version', '192.0.2.1/30,4', '192.0.2.2/30,4']);
    const nets = await csvGet(`/api/ipam/prefixes/${p.id}/available-prefixes/?format=csv`).expect(200);
    expect(nets.body.trim().split('\n')).toEqual(['prefix,ip_version', '192.0.2.0/30,4']);

    await t().post('/api/identity/sources/', { name: 'CSV source', slug: 'csv-src' }).expect(201);
    const msg = (family: string) => ({ sorAttributes: { names: [{ given: 'Ada', family }], identifiers: [{ identifier: 'x1', type: 'other' }], roles: [{ roleIdentifier: 'r1', affiliation: 'staff', status: 'A' }] } });
    const identity = (await t().put('/api/identity/sources/csv-src/identities/p1/', msg('Lovelace')).expect(201)).body;
    await t().put('/api/identity/sources/csv-src/identities/p1/', msg('King')).expect(200);
    const history = await csvGet(`/api/identity/external-identities/${identity.id}/history/?format=csv&limit=1`).expect(200);
    const lines = history.body.trim().split('\n');
    expect(lines[0]).toBe('id,time,action,user,user_name,changes');
    expect(lines).toHaveLength(3); // every entry: CSV is never paginated
  });

  it('writes a generic relation as its type and natural key, and reads that back', async () => {
    const lt = (await t().post('/api/dcim/location-types/', { name: 'GFK area', nestable: true }).expect(201)).body;
    const top = (await t().post('/api/dcim/locations/', { name: 'GFK top', location_type: lt.id, status: 'Active' }).expect(201)).body;
    const site = (await t().post('/api/dcim/locations/', { name: 'GFK site', location_type: lt.id, status: 'Active', parent: top.id }).expect(201)).body;
    const prefix = (await t().post('/api/ipam/prefixes/', { prefix: '198.51.100.0/24', status: 'Active' }).expect(201)).body;
    const onSite = (await t().post(`/api/dcim/locations/${site.id}/notes/`, { note: 'on the site' }).expect(201)).body;
    const onPrefix = (await t().post(`/api/ipam/prefixes/${prefix.id}/notes/`, { note: 'on the prefix' }).expect(201)).body;
    const before = (await t().get(`/api/extras/notes/?id=${onSite.id}&id=${onPrefix.id}`).expect(200)).body.results;

    const exported = await csvGet(`/api/extras/notes/?format=csv&id=${onSite.id}&id=${onPrefix.id}`).expect(200);
    const [header, ...rows] = parse(exported.body) as string[][];
    expect(header).not.toContain('assigned_object_id');
    const at = (row: string[], h: string) => row[header.indexOf(h)];
    for (const h of ['assigned_object_type', 'assigned_object__name', 'assigned_object__parent__name', 'assigned_object__namespace__name', 'assigned_object__network', 'assigned_object__prefix_length']) expect(header).toContain(h);
    const siteRow = rows.find((r) => at(r, 'id') === onSite.id)!;
    const prefixRow = rows.find((r) => at(r, 'id') === onPrefix.id)!;
    expect([at(siteRow, 'assigned_object_type'), at(siteRow, 'assigned_object__name'), at(siteRow, 'assigned_object__parent__name'), at(siteRow, 'assigned_object__network')])
      .toEqual(['dcim.location', 'GFK site', 'GFK top', '']);
    expect([at(prefixRow, 'assigned_object_type'), at(prefixRow, 'assigned_object__namespace__name'), at(prefixRow, 'assigned_object__network'), at(prefixRow, 'assigned_object__prefix_length'), at(prefixRow, 'assigned_object__name')])
      .toEqual(['ipam.prefix', 'Global', '198.51.100.0', '24', '']);

    await t().del('/api/extras/notes/', [{ id: onSite.id }, { id: onPrefix.id }]).expect(204);
    const res = await csvSend('post', '/api/extras/notes/', exported.body);
    expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
    const after = (await t().get(`/api/extras/notes/?id=${onSite.id}&id=${onPrefix.id}`).expect(200)).body.results;
    const norm = (n: any) => ({ ...n, created: undefined, last_updated: undefined, display: undefined });
    const byId = (a: any, b: any) => (a.id < b.id ? -1 : 1);
    expect(after.map(norm).sort(byId)).toEqual(before.map(norm).sort(byId));

    // JSON takes the same form: the type and the object by natural key or attributes
    const named = await t().post('/api/extras/notes/', { assigned_object_type: 'dcim.location', assigned_object: { name: 'GFK site', parent: { name: 'GFK top' } }, note: 'by name' }).expect(201);
    expect(named.body.assigned_object_id).toBe(site.id);
    const missing = await t().post('/api/extras/notes/', { assigned_object_type: 'dcim.location', assigned_object: { name: 'No such site' }, note: 'x' }).expect(400);
    expect(missing.body).toEqual({ assigned_object: ["Related object not found using the provided attributes: {'name': 'No such site'}"] });
    const badId = await t().post('/api/extras/notes/', { assigned_object_type: 'dcim.location', assigned_object_id: '00000000-0000-4000-8000-000000000000', note: 'x' }).expect(400);
    expect(Object.keys(badId.body)).toEqual(['assigned_object_id']);
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
    expect(deep.body.count).toBe(2500);
    const desc = await t().get('/api/tenancy/tenants/?name__isw=bulk-&sort=-name&limit=3&offset=2497').expect(200);
    expect(desc.body.results.map((x: any) => x.name)).toEqual(['bulk-00002', 'bulk-00001', 'bulk-00000']);
  });
});
