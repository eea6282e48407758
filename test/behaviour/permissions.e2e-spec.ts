import { eachDatabase } from '../../src/core/testing/harness';

/**
 * A constrained user walks every read path and finds nothing outside their scope: no hidden
 * object listed, nested with its attributes, found by a filter, exported, counted, named in a
 * display, or reachable through notes. Hidden objects appear, if at all, only as references
 * ({id, object_type, url}) from visible objects.
 */
eachDatabase('object permissions', (t) => {
  let tok = '';
  const ids: Record<string, string> = {};
  const SECRET = ['Hidden-Tenant', 'Hidden-Group', 'Hidden-Site', 'Hidden-Region', 'secret note text'];

  beforeAll(async () => {
    const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
    const ga = await post('/api/tenancy/tenant-groups/', { name: 'Open-Group' });
    const gb = await post('/api/tenancy/tenant-groups/', { name: 'Hidden-Group' });
    const ta = await post('/api/tenancy/tenants/', { name: 'Open-Tenant', tenant_group: ga.id });
    const tb = await post('/api/tenancy/tenants/', { name: 'Hidden-Tenant', tenant_group: gb.id });
    const lt = await post('/api/dcim/location-types/', { name: 'Area', nestable: true });
    const region = await post('/api/dcim/locations/', { name: 'Hidden-Region', location_type: lt.id, status: 'Active', tenant: tb.id });
    const open = await post('/api/dcim/locations/', { name: 'Open-Site', location_type: lt.id, status: 'Active', tenant: ta.id, parent: region.id });
    const hidden = await post('/api/dcim/locations/', { name: 'Hidden-Site', location_type: lt.id, status: 'Active', tenant: tb.id, parent: region.id });
    await t().post(`/api/dcim/locations/${hidden.id}/notes/`, { note: 'secret note text' }).expect(201);
    await t().post(`/api/dcim/locations/${open.id}/notes/`, { note: 'public note' }).expect(201);
    Object.assign(ids, { ga: ga.id, gb: gb.id, ta: ta.id, tb: tb.id, region: region.id, open: open.id, hidden: hidden.id, lt: lt.id });
    tok = await t().userWith('constrained', [
      { types: ['tenancy.tenantgroup'], actions: ['view'], constraints: { name: 'Open-Group' } },
      { types: ['tenancy.tenant'], actions: ['view', 'change'], constraints: { tenant_group__name: 'Open-Group' } },
      { types: ['dcim.location'], actions: ['view', 'add', 'change'], constraints: [{ tenant__name: 'Open-Tenant' }] },
      { types: ['dcim.locationtype', 'extras.status'], actions: ['view'] },
      { types: ['extras.note'], actions: ['view', 'add'] },
    ]);
  });

  const hiddenIds = () => [ids.gb, ids.tb, ids.region, ids.hidden];
  /** No secret text anywhere; hidden ids only inside {id, object_type, url} references. */
  const assertClean = (where: string, body: unknown) => {
    const text = JSON.stringify(body);
    for (const s of SECRET) expect({ where, leaked: text.includes(s) ? s : null }).toEqual({ where, leaked: null });
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) return v.forEach(walk);
      if (!v || typeof v !== 'object') return;
      const o = v as Record<string, unknown>;
      if (typeof o.id === 'string' && hiddenIds().includes(o.id)) {
        expect({ where, keys: Object.keys(o).sort() }).toEqual({ where, keys: ['id', 'object_type', 'url'] });
        return;
      }
      Object.values(o).forEach(walk);
    };
    walk(body);
  };

  it('lists, counts and details only objects in scope, at every depth', async () => {
    for (const path of ['/api/tenancy/tenant-groups/', '/api/tenancy/tenants/', '/api/dcim/locations/']) {
      for (const q of ['', '?depth=1', '?depth=2', '?exclude_m2m=true', '?include=relationships&include=computed_fields', '?q=Hidden', '?sort=-name']) {
        const res = await t().get(`${path}${q}`, tok).expect(200);
        assertClean(`${path}${q}`, res.body);
        for (const o of res.body.results) expect(hiddenIds()).not.toContain(o.id);
      }
    }
    expect((await t().get('/api/dcim/locations/', tok).expect(200)).body.count).toBe(1);
    for (const [path, id] of [['/api/tenancy/tenants/', ids.tb], ['/api/dcim/locations/', ids.hidden], ['/api/dcim/locations/', ids.region], ['/api/tenancy/tenant-groups/', ids.gb]]) {
      await t().get(`${path}${id}/`, tok).expect(404);
      await t().get(`${path}${id}/?format=csv`, tok).expect(404);
    }
    const detail = await t().get(`/api/dcim/locations/${ids.open}/?depth=2`, tok).expect(200);
    assertClean('detail depth 2', detail.body);
    expect(detail.body.display).toBe('Open-Site');
    expect(detail.body.tree_depth).toBe(1);
  });

  it('counts and names, for each requester, what they may view, whoever asked before them', async () => {
    await t().patch(`/api/dcim/location-types/${ids.lt}/`, { content_types: ['dcim.rack'] }).expect(200);
    const rack = (await t().post('/api/dcim/racks/', { name: 'Counted rack', location: ids.open, status: 'Active' }).expect(201)).body;
    try {
      for (const path of [`/api/dcim/locations/${ids.open}/`, `/api/dcim/locations/?id=${ids.open}`]) {
        // The superuser first (who sees every row), then the constrained user, who may view no rack, then the superuser again.
        for (const [who, rackCount, display] of [
          ['superuser', 1, 'Hidden-Region → Open-Site'],
          ['constrained', 0, 'Open-Site'],
          ['superuser', 1, 'Hidden-Region → Open-Site'],
        ] as const) {
          const body = (await t().get(path, who === 'superuser' ? undefined : tok).expect(200)).body;
          const o = body.results ? body.results[0] : body;
          expect({ path, who, rack_count: o.rack_count, display: o.display, tree_depth: o.tree_depth }).toEqual({ path, who, rack_count: rackCount, display, tree_depth: 1 });
        }
      }
    } finally {
      await t().del(`/api/dcim/racks/${rack.id}/`).expect(204);
    }
  });

  it('finds no hidden object through filters, and cannot probe hidden attributes', async () => {
    expect((await t().get(`/api/dcim/locations/?tenant=${ids.tb}`, tok).expect(400)).body).toEqual({
      tenant: [`Select a valid choice. ${ids.tb} is not one of the available choices.`],
    });
    await t().get('/api/dcim/locations/?tenant=Hidden-Tenant', tok).expect(400);
    expect((await t().get('/api/dcim/locations/?parent__name=Hidden-Region', tok).expect(200)).body.count).toBe(0);
    expect((await t().get('/api/dcim/locations/?tenant__name__ic=hidden', tok).expect(200)).body.count).toBe(0);
    expect((await t().get('/api/tenancy/tenants/?has_locations=true', tok).expect(200)).body.count).toBe(1);
    expect((await t().get(`/api/tenancy/tenants/?locations=${ids.hidden}`, tok).expect(400)).body).toHaveProperty('locations');
  });

  it('exports only objects in scope as CSV, naming hidden related objects by id only', async () => {
    const res = await t().get('/api/dcim/locations/?format=csv', tok).expect(200);
    expect(res.text.trim().split('\n')).toHaveLength(2);
    for (const s of SECRET) expect(res.text).not.toContain(s);
    expect(res.text).toContain(ids.region);
  });

  it('writes no hidden name in CSV, however many hops away: ancestors and tags', async () => {
    const tag = (await t().post('/api/extras/tags/', { name: 'Secret-Tag', content_types: ['dcim.location'] }).expect(201)).body;
    const child = (await t().post('/api/dcim/locations/', { name: 'Open-Child', location_type: ids.lt, status: 'Active', tenant: ids.ta, parent: ids.open, tags: [tag.id] }).expect(201)).body;
    try {
      const res = await t().get('/api/dcim/locations/?format=csv&name=Open-Child', tok).expect(200);
      const [header, row] = res.text.trim().split('\n').map((l: string) => l.split(','));
      expect(row[header.indexOf('parent__name')]).toBe('Open-Site');
      expect(row[header.indexOf('parent__parent__name')]).toBe('NULL');
      expect(res.text).not.toContain('Hidden-Region');
      expect(res.text).not.toContain('Secret-Tag');
      expect(row[header.indexOf('tags')]).toBe(tag.id);
      // The superuser sees every name.
      const all = await t().get('/api/dcim/locations/?format=csv&name=Open-Child').expect(200);
      expect(all.text).toContain('Hidden-Region');
      expect(all.text).toContain('Secret-Tag');
    } finally {
      await t().del(`/api/dcim/locations/${child.id}/`).expect(204);
    }
  });

  it('cannot reference, update or delete hidden objects in writes', async () => {
    const bad = await t().post('/api/dcim/locations/', { name: 'New', location_type: ids.lt, status: 'Active', tenant: ids.tb }, tok).expect(400);
    expect(bad.body.tenant[0]).toMatch(/^Related object not found/);
    expect(JSON.stringify(bad.body)).not.toContain('Hidden');
    // Attributes of a reference cannot reach through a visible object into a hidden one.
    const base = { location_type: ids.lt, status: 'Active', tenant: ids.ta };
    const probe = await t().post('/api/dcim/locations/', { ...base, name: 'Probe', parent: { name: 'Open-Site', parent__name__isw: 'Hidden' } }, tok).expect(400);
    expect(probe.body.parent[0]).toMatch(/^Related object not found/);
    const byName = await t().post('/api/dcim/locations/', { ...base, name: 'Probe', parent: { name: 'Open-Site', parent: 'Hidden-Region' } }, tok).expect(400);
    expect(byName.body.parent[0]).toMatch(/^Related object not found/);
    const control = await t().post('/api/dcim/locations/', { ...base, name: 'Probe', parent: { name: 'Open-Site' } }, tok).expect(201);
    await t().del(`/api/dcim/locations/${control.body.id}/`).expect(204);
    const bulk = await t().patch('/api/dcim/locations/', [{ id: ids.open, description: 'x' }, { id: ids.hidden, description: 'y' }], tok).expect(400);
    assertClean('bulk patch error', bulk.body);
    await t().patch(`/api/tenancy/tenants/${ids.tb}/`, { description: 'x' }, tok).expect(404);
    // moving a visible object out of scope is refused and rolled back
    await t().patch(`/api/dcim/locations/${ids.open}/`, { tenant: ids.ta, description: 'still mine' }, tok).expect(200);
    const leave = await t().patch(`/api/tenancy/tenants/${ids.ta}/`, { tenant_group: null }, tok).expect(403);
    expect(leave.body).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect((await t().get(`/api/tenancy/tenants/${ids.ta}/`).expect(200)).body.tenant_group.id).toBe(ids.ga);
  });

  it('shows and accepts notes only for objects in scope', async () => {
    const notes = await t().get('/api/extras/notes/?limit=100', tok).expect(200);
    assertClean('notes list', notes.body);
    expect(notes.body.count).toBe(1);
    await t().get(`/api/dcim/locations/${ids.hidden}/notes/`, tok).expect(404);
    await t().post(`/api/dcim/locations/${ids.hidden}/notes/`, { note: 'x' }, tok).expect(404);
    const mine = await t().get(`/api/dcim/locations/${ids.open}/notes/`, tok).expect(200);
    expect(mine.body.results.map((n: any) => n.note)).toEqual(['public note']);
    const added = await t().post(`/api/dcim/locations/${ids.open}/notes/`, { note: 'from constrained' }, tok).expect(201);
    expect(added.body).toMatchObject({ note: 'from constrained', user_name: 'constrained', assigned_object_type: 'dcim.location', assigned_object_id: ids.open });
    const forged = await t().post('/api/extras/notes/', { note: 'sneaky', assigned_object_type: 'dcim.location', assigned_object_id: ids.hidden }, tok).expect(400);
    assertClean('forged note', forged.body);
  });

  it('substitutes $user in constraints with the requester', async () => {
    const me = await t().userWith('self-viewer', [{ types: ['users.user'], actions: ['view', 'change'], constraints: { id: '$user' } }]);
    const list = await t().get('/api/users/users/', me).expect(200);
    expect(list.body.results.map((u: any) => u.username)).toEqual(['self-viewer']);
    const mine = list.body.results[0];
    await t().patch(`/api/users/users/${mine.id}/`, { first_name: 'Me' }, me).expect(200);
    const admin = (await t().get('/api/users/users/?username=admin').expect(200)).body.results[0];
    await t().patch(`/api/users/users/${admin.id}/`, { first_name: 'Not me' }, me).expect(404);
  });

  it('names only visible dependents when a delete is refused', async () => {
    const remover = await t().userWith('group-remover', [
      { types: ['tenancy.tenantgroup'], actions: ['view', 'delete'] },
      { types: ['tenancy.tenant'], actions: ['view'], constraints: { tenant_group__name: 'Open-Group' } },
    ]);
    const hidden = await t().del(`/api/tenancy/tenant-groups/${ids.gb}/`, undefined, remover).expect(409);
    expect(hidden.body.detail).toBe('Unable to delete object. 1 dependent objects were found: 1 that you may not view');
    const open = await t().del(`/api/tenancy/tenant-groups/${ids.ga}/`, undefined, remover).expect(409);
    expect(open.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: Open-Tenant (${ids.ta})`);
  });

  it('never matches references on fields that do not filter (no password-hash oracle)', async () => {
    const res = await t().post('/api/users/permissions/', { name: 'oracle', object_types: ['dcim.location'], actions: ['view'], users: [{ username: 'admin', password__isw: 'scrypt$' }] }).expect(400);
    expect(res.body.users).toBeDefined();
    await t().get('/api/users/permissions/?name=oracle').expect(200).expect((r) => expect(r.body.count).toBe(0));
  });

  it('lets only superusers make or change superusers', async () => {
    const tok = await t().userWith('user-admin', [{ types: ['users.user'], actions: ['view', 'add', 'change'] }]);
    const self = (await t().get('/api/users/users/?username=user-admin', tok).expect(200)).body.results[0];
    const up = await t().patch(`/api/users/users/${self.id}/`, { is_superuser: true }, tok).expect(400);
    expect(up.body).toEqual({ is_superuser: ['Only a superuser may change superuser status.'] });
    await t().post('/api/users/users/', { username: 'sneaky', is_superuser: true }, tok).expect(400);
    const admin = (await t().get('/api/users/users/?username=admin', tok).expect(200)).body.results[0];
    await t().patch(`/api/users/users/${admin.id}/`, { password: 'taken-over-now' }, tok).expect(400);
    await t().post('/api/users/users/', { username: 'plain-user' }, tok).expect(201);
  });

  it('validates constraints changed alone, and a stored constraint that stops compiling grants nothing', async () => {
    const cf = (await t().post('/api/extras/custom-fields/', { key: 'owner_team', label: 'Owner team', type: 'text', content_types: ['tenancy.tenant'] }).expect(201)).body;
    await t().patch(`/api/tenancy/tenants/${ids.ta}/`, { custom_fields: { owner_team: 'netops' } }).expect(200);
    const tok2 = await t().userWith('cf-scoped', [{ types: ['tenancy.tenant'], actions: ['view'], constraints: { cf_owner_team: 'netops' } }]);
    expect((await t().get('/api/tenancy/tenants/', tok2).expect(200)).body.results.map((r: any) => r.name)).toEqual(['Open-Tenant']);
    const perm = (await t().get('/api/users/permissions/?name=cf-scoped-0').expect(200)).body.results[0];
    const bad = await t().patch(`/api/users/permissions/${perm.id}/`, { constraints: { no_such_field: 'x' } }).expect(400);
    expect(bad.body.constraints[0]).toMatch(/^Invalid filter for tenancy.tenant/);
    // The custom field goes away: the constraint names nothing any more and grants nothing.
    await t().del(`/api/extras/custom-fields/${cf.id}/`).expect(204);
    const after = await t().get('/api/tenancy/tenants/', tok2).expect(200);
    expect(after.body).toMatchObject({ count: 0, results: [] });
    await t().get(`/api/tenancy/tenants/${ids.ta}/`, tok2).expect(404);
  });

  it("takes constraints on the stored custom field data as the reference's are written (_custom_field_data__<key>__<lookup>), known key or not", async () => {
    await t().post('/api/extras/custom-fields/', { key: 'site_team', label: 'Site team', type: 'text', content_types: ['tenancy.tenant'] }).expect(201);
    await t().patch(`/api/tenancy/tenants/${ids.ta}/`, { custom_fields: { site_team: 'TestTeam-1' } }).expect(200);
    const known = await t().userWith('cf-orm', [{ types: ['tenancy.tenant'], actions: ['view'], constraints: { _custom_field_data__site_team__istartswith: 'testteam' } }]);
    expect((await t().get('/api/tenancy/tenants/', known).expect(200)).body.results.map((r: any) => r.name)).toEqual(['Open-Tenant']);
    const exact = await t().userWith('cf-orm-exact', [{ types: ['tenancy.tenant'], actions: ['view'], constraints: { _custom_field_data__site_team: 'testteam-1' } }]);
    expect((await t().get('/api/tenancy/tenants/', exact).expect(200)).body.count).toBe(0);
    // A key no custom field has (yet): stored as given, read back unchanged, grants nothing.
    const perm = (await t().post('/api/users/permissions/', { name: 'future-cf', actions: ['view'], object_types: ['tenancy.tenant'], constraints: { _custom_field_data__team__istartswith: 'testteam' } }).expect(201)).body;
    expect(perm.constraints).toEqual({ _custom_field_data__team__istartswith: 'testteam' });
    const bad = await t().post('/api/users/permissions/', { name: 'bad-cf', actions: ['view'], object_types: ['tenancy.tenant'], constraints: { '_custom_field_data__a-b': 'x' } }).expect(400);
    expect(bad.body.constraints[0]).toMatch(/^Invalid filter for tenancy.tenant/);
    await t().get('/api/tenancy/tenants/?_custom_field_data__site_team=x').expect(400);
  });

  it('needs the note permissions for the notes endpoints', async () => {
    const noNotes = await t().userWith('no-notes', [{ types: ['dcim.location'], actions: ['view'] }]);
    await t().get(`/api/dcim/locations/${ids.open}/notes/`, noNotes).expect(403);
    await t().post(`/api/dcim/locations/${ids.open}/notes/`, { note: 'x' }, noNotes).expect(403);
  });
});
