import { eachDatabase } from '../../src/core/testing/harness';

/**
 * The holes an attacker found with a user limited to one tenant's objects (security issue):
 * deletes that cascade outside the scope, orders and existence filters that read hidden
 * objects, names a client sends that reach object prototypes, and a write that fell back on a
 * default namespace that is gone.
 */
eachDatabase('scope holes', (t) => {
  let tok = '';
  let reader = '';
  const ids: Record<string, string> = {};
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;

  beforeAll(async () => {
    const ta = await post('/api/tenancy/tenants/', { name: 'TenantA' });
    const tb = await post('/api/tenancy/tenants/', { name: 'TenantB' });
    const lt = await post('/api/dcim/location-types/', { name: 'Region', nestable: true, content_types: ['ipam.prefix'] });
    const region1 = await post('/api/dcim/locations/', { name: 'A-Region1', location_type: lt.id, status: 'Active', tenant: ta.id });
    const region2 = await post('/api/dcim/locations/', { name: 'A-Region2', location_type: lt.id, status: 'Active', tenant: ta.id });
    const child = await post('/api/dcim/locations/', { name: 'B-HiddenChild', location_type: lt.id, status: 'Active', tenant: tb.id, parent: region2.id });
    // A hidden parent whose name sorts between two visible ones (A-OpenParent, and Y-OpenParent below).
    const mHidden = await post('/api/dcim/locations/', { name: 'M-HiddenParent', location_type: lt.id, status: 'Active', tenant: tb.id });
    const aOpen = await post('/api/dcim/locations/', { name: 'A-OpenParent', location_type: lt.id, status: 'Active', tenant: ta.id });
    const under1 = await post('/api/dcim/locations/', { name: 'A-Under-Hidden', location_type: lt.id, status: 'Active', tenant: ta.id, parent: mHidden.id });
    const under2 = await post('/api/dcim/locations/', { name: 'A-Under-Open', location_type: lt.id, status: 'Active', tenant: ta.id, parent: aOpen.id });
    await t().post(`/api/dcim/locations/${child.id}/notes/`, { note: 'hidden child note' }).expect(201);
    const prefix = await post('/api/ipam/prefixes/', { prefix: '10.9.0.0/16', status: 'Active' });
    const tag = await post('/api/extras/tags/', { name: 'HiddenTag', content_types: ['dcim.location'] });
    await t().patch(`/api/dcim/locations/${region1.id}/`, { tags: [tag.id] }).expect(200);
    Object.assign(ids, { ta: ta.id, tb: tb.id, lt: lt.id, region1: region1.id, region2: region2.id, child: child.id, mHidden: mHidden.id, aOpen: aOpen.id, under1: under1.id, under2: under2.id, prefix: prefix.id, tag: tag.id });
    tok = await t().userWith('tenant-a', [
      { types: ['dcim.location'], actions: ['view', 'add', 'change', 'delete'], constraints: { tenant__name: 'TenantA' } },
      { types: ['tenancy.tenant'], actions: ['view'], constraints: { name: 'TenantA' } },
      { types: ['dcim.locationtype', 'extras.status', 'extras.note'], actions: ['view'] },
    ]);
    reader = await t().userWith('vrf-writer', [
      { types: ['ipam.vrf', 'ipam.namespace'], actions: ['view', 'add'] },
    ]);
  });

  const names = async (path: string, token = tok) => ((await t().get(path, token).expect(200)).body.results as { name: string }[]).map((o) => o.name);

  it('refuses a delete that would cascade to an object the requester may not delete, single and bulk, and deletes nothing', async () => {
    const single = await t().del(`/api/dcim/locations/${ids.region2}/`, undefined, tok).expect(403);
    expect(single.body).toEqual({ detail: 'Unable to delete object: it would also delete 1 dependent object that you may not delete.' });
    expect(JSON.stringify(single.body)).not.toContain('B-HiddenChild');
    const bulk = await t().del('/api/dcim/locations/', [{ id: ids.region2 }], tok).expect(403);
    expect(bulk.body).toEqual(single.body);
    await t().get(`/api/dcim/locations/${ids.region2}/`).expect(200);
    await t().get(`/api/dcim/locations/${ids.child}/`).expect(200);
    expect((await t().get(`/api/dcim/locations/${ids.child}/notes/`).expect(200)).body.count).toBe(1);
    // The superuser may: the child and its notes go with it.
    const spare = await post('/api/dcim/locations/', { name: 'A-Spare', location_type: ids.lt, status: 'Active', tenant: ids.ta });
    const own = await post('/api/dcim/locations/', { name: 'A-OwnChild', location_type: ids.lt, status: 'Active', tenant: ids.ta, parent: spare.id });
    // A cascade that stays inside the scope is allowed.
    await t().del(`/api/dcim/locations/${spare.id}/`, undefined, tok).expect(204);
    await t().get(`/api/dcim/locations/${own.id}/`).expect(404);
  });

  it('refuses a delete that would set a reference to null on an object the requester may not change', async () => {
    const deleter = await t().userWith('address-deleter', [{ types: ['ipam.ipaddress'], actions: ['view', 'delete'], constraints: { tenant__name: 'TenantA' } }]);
    const inside = await post('/api/ipam/ip-addresses/', { address: '10.9.0.1/16', status: 'Active', tenant: ids.ta, namespace: 'Global' });
    const outside = await post('/api/ipam/ip-addresses/', { address: '10.9.0.2/16', status: 'Active', tenant: ids.tb, namespace: 'Global', nat_inside: inside.id });
    const res = await t().del(`/api/ipam/ip-addresses/${inside.id}/`, undefined, deleter).expect(403);
    expect(res.body).toEqual({ detail: 'Unable to delete object: it would also change 1 object that you may not change.' });
    expect((await t().get(`/api/ipam/ip-addresses/${outside.id}/`).expect(200)).body.nat_inside.id).toBe(inside.id);
    // A reference the engine keeps (an address's parent prefix) is not the requester's change.
    const cover = await post('/api/ipam/prefixes/', { prefix: '10.0.0.0/8', status: 'Active' });
    const prefixDeleter = await t().userWith('prefix-deleter', [{ types: ['ipam.prefix'], actions: ['view', 'delete'] }]);
    await t().del(`/api/ipam/prefixes/${ids.prefix}/`, undefined, prefixDeleter).expect(204);
    expect((await t().get(`/api/ipam/ip-addresses/${outside.id}/`).expect(200)).body.parent.id).toBe(cover.id);
  });

  it('lets a superuser delete a user with tokens, which no one else can list', async () => {
    const other = await t().userWith('token-owner', []);
    const me = (await t().get('/api/users/tokens/', other).expect(200)).body.results[0];
    const owner = (await t().get('/api/users/users/?username=token-owner').expect(200)).body.results[0];
    expect(me.user.id).toBe(owner.id);
    await t().del(`/api/users/users/${owner.id}/`).expect(204);
    await t().get('/api/users/tokens/', other).expect(403);
  });

  it('sorts through a relation by what the requester may view: a hidden parent sorts as none', async () => {
    const filter = `id=${ids.under1}&id=${ids.under2}`;
    const yOpen = await post('/api/dcim/locations/', { name: 'Y-OpenParent', location_type: ids.lt, status: 'Active', tenant: ids.ta });
    const under3 = await post('/api/dcim/locations/', { name: 'A-Under-Y', location_type: ids.lt, status: 'Active', tenant: ids.ta, parent: yOpen.id });
    const three = `${filter}&id=${under3.id}`;
    // By name M-HiddenParent sorts between A- and Y-OpenParent (as the superuser sees); as none it sorts last (first descending).
    expect(await names(`/api/dcim/locations/?${three}&sort=parent`, t().token)).toEqual(['A-Under-Open', 'A-Under-Hidden', 'A-Under-Y']);
    expect(await names(`/api/dcim/locations/?${three}&sort=parent`)).toEqual(['A-Under-Open', 'A-Under-Y', 'A-Under-Hidden']);
    expect(await names(`/api/dcim/locations/?${three}&sort=-parent`)).toEqual(['A-Under-Hidden', 'A-Under-Y', 'A-Under-Open']);
    // The same on the CSV export, whose rows come in the same order.
    const csv = (await t().get(`/api/dcim/locations/?${three}&sort=-parent&format=csv`, tok).expect(200)).text;
    expect(csv.split('\n').slice(1).map((l) => l.split(',')[0]).filter(Boolean)).toEqual(['A-Under-Hidden', 'A-Under-Y', 'A-Under-Open']);
    await t().del(`/api/dcim/locations/${under3.id}/`).expect(204);
    await t().del(`/api/dcim/locations/${yOpen.id}/`).expect(204);
  });

  it('counts only visible objects in existence filters', async () => {
    // A-Region2's only child is hidden; the requester may see no prefix and no tag.
    expect(await names(`/api/dcim/locations/?id=${ids.region2}&has_children=true`)).toEqual([]);
    expect(await names(`/api/dcim/locations/?id=${ids.region2}&has_children=false`)).toEqual(['A-Region2']);
    expect(await names(`/api/dcim/locations/?id=${ids.region2}&has_children=true`, t().token)).toEqual(['A-Region2']);
    const p = await post('/api/ipam/prefixes/', { prefix: '10.10.0.0/16', status: 'Active', locations: [ids.region1] });
    expect(await names(`/api/dcim/locations/?id=${ids.region1}&has_prefixes=true`)).toEqual([]);
    expect(await names(`/api/dcim/locations/?id=${ids.region1}&has_prefixes=true`, t().token)).toEqual(['A-Region1']);
    await t().del(`/api/ipam/prefixes/${p.id}/`).expect(204);
    expect(await names(`/api/dcim/locations/?id=${ids.region1}&has_tags=true`)).toEqual([]);
    expect(await names(`/api/dcim/locations/?id=${ids.region1}&has_tags=false`)).toEqual(['A-Region1']);
    expect(await names(`/api/dcim/locations/?id=${ids.region1}&has_tags=true`, t().token)).toEqual(['A-Region1']);
  });

  it('treats query keys that name object properties as unknown filters, on lists, notes, tokens and CSV', async () => {
    const keys = ['__proto__', 'constructor', 'toString', '__defineGetter__', 'hasOwnProperty', 'valueOf', 'name__constructor', 'parent__toString', 'has___proto__', 'cf___proto__', 'name__hasOwnProperty'];
    const lists = ['/api/dcim/locations/', `/api/dcim/locations/${ids.region1}/notes/`, '/api/users/tokens/', '/api/extras/notes/', '/api/ipam/prefixes/'];
    for (const list of lists) {
      for (const key of keys) {
        for (const suffix of ['', '&format=csv']) {
          const res = await t().get(`${list}?${key}=x${suffix}`);
          expect({ list, key, suffix, status: res.status, body: res.body }).toEqual({ list, key, suffix, status: 400, body: { [key]: ['Unknown filter field'] } });
        }
      }
      await t().get(`${list}?sort=__proto__,constructor`).expect(200);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never reaches object prototypes through bodies, references or CSV headers', async () => {
    const bodies = [
      { name: 'P1', location_type: ids.lt, status: 'Active', __proto__x: 1, constructor: { prototype: { polluted: 1 } } },
      JSON.parse(`{"name": "P2", "location_type": "${ids.lt}", "status": "Active", "__proto__": {"polluted": 1}}`),
      { name: 'P3', location_type: { __proto__: { polluted: 1 }, name: 'Region' }, status: 'Active' },
      { name: 'P4', location_type: ids.lt, status: 'Active', parent: { constructor: { prototype: { polluted: 1 } } } },
      { name: 'P5', location_type: ids.lt, status: 'Active', custom_fields: JSON.parse('{"__proto__": {"polluted": 1}}') },
    ];
    for (const body of bodies) {
      const res = await t().post('/api/dcim/locations/', body);
      expect(res.status).toBeLessThan(500);
      expect(res.body).toEqual(expect.any(Object));
    }
    const csv = ['name,location_type__name,status,parent__constructor__prototype__polluted', 'P6,Region,Active,yes'].join('\n');
    const res = await t().post('/api/dcim/locations/').set('Content-Type', 'text/csv').send(csv);
    expect(res.status).toBeLessThan(500);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('asks for the namespace when the default one no longer exists, instead of failing', async () => {
    const global = (await t().get('/api/ipam/namespaces/?name=Global').expect(200)).body.results[0];
    await t().patch(`/api/ipam/namespaces/${global.id}/`, { name: 'Renamed' }).expect(200);
    try {
      for (const [path, body] of [
        ['/api/ipam/vrfs/', { name: 'No-NS' }],
        ['/api/ipam/prefixes/', { prefix: '10.200.0.0/16', status: 'Active' }],
      ] as const) {
        for (const token of [t().token, reader]) {
          const res = await t().post(path, body, token);
          if (path === '/api/ipam/prefixes/' && token === reader) {
            expect(res.status).toBe(403);
            continue;
          }
          expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 400, body: { namespace: ['This field is required.'] } });
        }
      }
      expect((await t().get('/api/ipam/vrfs/?name=No-NS').expect(200)).body.count).toBe(0);
    } finally {
      await t().patch(`/api/ipam/namespaces/${global.id}/`, { name: 'Global' }).expect(200);
    }
    // With it back, the default applies again.
    expect((await t().post('/api/ipam/vrfs/', { name: 'With-NS' }, reader).expect(201)).body.namespace.id).toBe(global.id);
  });
});
