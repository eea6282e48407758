import { eachDatabase } from '../../src/core/testing/harness';
import { tokenFor } from '../support/users';

eachDatabase('location rules', (t) => {
  const type = async (name: string, extra: object = {}) => (await t().post('/api/dcim/location-types/', { name, ...extra }).expect(201)).body;
  const loc = (name: string, location_type: string, parent?: string) => t().post('/api/dcim/locations/', { name, location_type, parent, status: 'Active' });
  let region: any, site: any, floor: any, zone: any;

  beforeAll(async () => {
    region = await type('Region');
    site = await type('Site', { parent: region.id });
    floor = await type('Floor', { parent: site.id, nestable: true });
    zone = await type('Zone', { nestable: true });
  });

  it('applies the location-type nesting rules with the reference messages', async () => {
    const eu = (await loc('EU', region.id).expect(201)).body;
    expect((await loc('Stray', region.id, eu.id).expect(400)).body).toEqual({ parent: ['A Location of type Region must not have a parent Location.'] });
    expect((await loc('Orphan', site.id).expect(400)).body).toEqual({ parent: ['A Location of type Site must have a parent Location.'] });
    const ams = (await loc('AMS', site.id, eu.id).expect(201)).body;
    expect((await loc('Wrong', site.id, ams.id).expect(400)).body).toEqual({ parent: ['A Location of type Site can only have a Location of type Region as its parent.'] });
    const f1 = (await loc('F1', floor.id, ams.id).expect(201)).body;
    await loc('F1a', floor.id, f1.id).expect(201);
    expect((await loc('F1b', floor.id, eu.id).expect(400)).body).toEqual({
      parent: ['A Location of type Floor can only have a Location of the same type or of type Site as its parent.'],
    });
    const z = (await loc('Z1', zone.id).expect(201)).body;
    await loc('Z2', zone.id, z.id).expect(201);
    expect((await loc('Z3', zone.id, eu.id).expect(400)).body).toEqual({ parent: ['A Location of type Zone may only have a Location of the same type as its parent.'] });
  });

  it('keeps names unique per parent, root names included', async () => {
    await loc('Root-1', region.id).expect(201);
    expect((await loc('Root-1', region.id).expect(400)).body).toEqual({ name: ['A root-level location with this name already exists.'] });
    const r2 = (await loc('Root-2', region.id).expect(201)).body;
    await loc('Same', site.id, r2.id).expect(201);
    expect((await loc('Same', site.id, r2.id).expect(400)).body.name).toBeDefined();
    const both = await t().post('/api/dcim/locations/', [
      { name: 'Twin', location_type: region.id, status: 'Active' },
      { name: 'Twin', location_type: region.id, status: 'Active' },
    ]).expect(400);
    expect(both.body[0]).toEqual({});
    expect(both.body[1].name).toBeDefined();
  });

  it('refuses to change the type of an existing location', async () => {
    const x = (await loc('Typed', zone.id).expect(201)).body;
    const res = await t().patch(`/api/dcim/locations/${x.id}/`, { location_type: region.id }).expect(400);
    expect(res.body).toEqual({ location_type: ['Changing the type of an existing Location (from Zone to Region in this case) is not permitted.'] });
  });

  it('refuses to move a location under itself or its descendants, one by one or in a bulk update', async () => {
    const c1 = (await loc('C1', zone.id).expect(201)).body;
    const c2 = (await loc('C2', zone.id, c1.id).expect(201)).body;
    const c3 = (await loc('C3', zone.id, c2.id).expect(201)).body;
    const other = (await loc('C-other', zone.id).expect(201)).body;
    const refused = { parent: ['Cannot assign self or a descendant as the parent.'] };
    expect((await t().patch(`/api/dcim/locations/${c1.id}/`, { parent: c3.id }).expect(400)).body).toEqual(refused);
    expect((await t().patch(`/api/dcim/locations/${c2.id}/`, { parent: c2.id }).expect(400)).body).toEqual(refused);
    // In a batch: the first refused object's errors, and nothing of the batch is written.
    const bulk = await t().patch('/api/dcim/locations/', [{ id: c3.id, parent: other.id }, { id: c1.id, parent: c2.id }]).expect(400);
    expect(bulk.body).toEqual(refused);
    expect((await t().get(`/api/dcim/locations/${c3.id}/`).expect(200)).body.parent.id).toBe(c2.id);
    const moved = await t().patch('/api/dcim/locations/', [{ id: c3.id, parent: c1.id }, { id: c2.id, parent: other.id }]).expect(200);
    expect(moved.body.map((l: any) => l.parent.id)).toEqual([c1.id, other.id]);
    // Each move alone is fine, together they make a loop (c1 -> other -> c1): refused whole.
    const loop = await t().patch('/api/dcim/locations/', [{ id: other.id, parent: c1.id }, { id: c1.id, parent: c2.id }]).expect(400);
    expect(loop.body).toEqual(refused);
    expect((await t().get(`/api/dcim/locations/${other.id}/`).expect(200)).body.parent).toBeNull();
    expect((await t().get(`/api/dcim/locations/${c1.id}/`).expect(200)).body.parent).toBeNull();
  });

  it('reserves rack-group names and guards nestable and parent changes of location types', async () => {
    expect((await t().post('/api/dcim/location-types/', { name: 'Rack Groups' }).expect(400)).body).toEqual({ name: ['This name is reserved for future use.'] });
    const nested = (await loc('Z-parent', zone.id).expect(201)).body;
    await loc('Z-child', zone.id, nested.id).expect(201);
    const res = await t().patch(`/api/dcim/location-types/${zone.id}/`, { nestable: false }).expect(400);
    expect(res.body.nestable[0]).toMatch(/^There are existing nested Locations of this type/);
    const moved = await t().patch(`/api/dcim/location-types/${zone.id}/`, { parent: region.id }).expect(400);
    expect(moved.body.parent[0]).toMatch(/currently has Locations using it/);
  });

  it('shows derived counts and tree_depth on the root representation only', async () => {
    const eu = (await t().get('/api/dcim/locations/?name=EU').expect(200)).body.results[0];
    expect(eu.tree_depth).toBe(0);
    for (const k of ['circuit_count', 'device_count', 'prefix_count', 'rack_count', 'virtual_machine_count', 'vlan_count']) expect(eu[k]).toBe(0);
    const ams = (await t().get('/api/dcim/locations/?name=AMS&depth=1').expect(200)).body.results[0];
    expect(ams.tree_depth).toBe(1);
    expect(ams.display).toBe('EU → AMS');
    expect(ams.parent.tree_depth).toBeNull();
    expect(ams.parent).not.toHaveProperty('device_count');
  });

  it('orders by natural name, so site9 comes before site10', async () => {
    const t9 = await type('Numbered');
    for (const n of ['site10', 'site9', 'site100']) await loc(n, t9.id).expect(201);
    const names = (await t().get(`/api/dcim/locations/?location_type=${t9.id}`).expect(200)).body.results.map((r: any) => r.name);
    expect(names).toEqual(['site9', 'site10', 'site100']);
  });

  it('scopes a permission by subtree: in a constraint, a custom filter names locations among all of them', async () => {
    const top = (await loc('Scope top', region.id).expect(201)).body;
    await loc('Scope child', site.id, top.id).expect(201);
    await loc('Scope other', region.id).expect(201);
    const viewer = (await t().post('/api/users/users/', { username: 'subtree-viewer' }).expect(201)).body.id;
    await t().post('/api/users/permissions/', { name: 'subtree', object_types: ['dcim.location'], actions: ['view'], users: [viewer], constraints: { subtree: 'Scope top' } }).expect(201);
    const res = await t().get('/api/dcim/locations/?limit=100', await tokenFor(t(), viewer)).expect(200);
    expect(res.body.results.map((l: { name: string }) => l.name).sort()).toEqual(['Scope child', 'Scope top']);
  });

  // Written objects and nested ones have their ancestry loaded (a list page reads its own):
  // chains that share ancestors, at several depths, with an ancestor the writer may not view.
  it('names the ancestors of written and nested objects that the requester may view', async () => {
    const top = (await loc('Anc top', zone.id).expect(201)).body;
    const mid = (await loc('Anc mid', zone.id, top.id).expect(201)).body;
    const writer = (await t().post('/api/users/users/', { username: 'ancestry-writer' }).expect(201)).body.id;
    await t().post('/api/users/permissions/', { name: 'ancestry-writer', object_types: ['dcim.location'], actions: ['view', 'add'], users: [writer], constraints: { subtree: 'Anc mid' } }).expect(201);
    await t().post('/api/users/permissions/', { name: 'ancestry-refs', object_types: ['dcim.locationtype', 'extras.status'], actions: ['view'], users: [writer] }).expect(201);
    const tok = await tokenFor(t(), writer);
    const row = (o: { name: string; display: string; tree_depth: number }) => [o.name, o.display, o.tree_depth];
    const first = (await t().post('/api/dcim/locations/', ['Anc a', 'Anc b'].map((name) => ({ name, location_type: zone.id, parent: mid.id, status: 'Active' })), tok).expect(201)).body;
    expect(first.map(row)).toEqual([
      ['Anc a', 'Anc mid → Anc a', 2],
      ['Anc b', 'Anc mid → Anc b', 2],
    ]);
    const [a, b] = first;
    const second = [
      { name: 'Anc a1', location_type: zone.id, parent: a.id, status: 'Active' },
      { name: 'Anc a2', location_type: zone.id, parent: a.id, status: 'Active' },
      { name: 'Anc b1', location_type: zone.id, parent: b.id, status: 'Active' },
      { name: 'Anc m1', location_type: zone.id, parent: mid.id, status: 'Active' },
    ];
    expect((await t().post('/api/dcim/locations/', second).expect(201)).body.map(row)).toEqual([
      ['Anc a1', 'Anc top → Anc mid → Anc a → Anc a1', 3],
      ['Anc a2', 'Anc top → Anc mid → Anc a → Anc a2', 3],
      ['Anc b1', 'Anc top → Anc mid → Anc b → Anc b1', 3],
      ['Anc m1', 'Anc top → Anc mid → Anc m1', 2],
    ]);
    // Nested parents at depth 1 name their ancestors too, as the writer may view them.
    const nested = (await t().get('/api/dcim/locations/?name__isw=Anc&depth=1&sort=name&limit=100', tok).expect(200)).body.results;
    expect(nested.map((o: { name: string; parent: { display?: string } | null }) => [o.name, o.parent?.display ?? null])).toEqual([
      ['Anc a', 'Anc mid'],
      ['Anc a1', 'Anc mid → Anc a'],
      ['Anc a2', 'Anc mid → Anc a'],
      ['Anc b', 'Anc mid'],
      ['Anc b1', 'Anc mid → Anc b'],
      ['Anc m1', 'Anc mid'],
      ['Anc mid', null],
    ]);
  });

  it('filters by subtree, and subtree__n excludes exactly that subtree', async () => {
    const top = (await loc('Sub top', region.id).expect(201)).body;
    const child = (await loc('Sub child', site.id, top.id).expect(201)).body;
    await loc('Sub floor', floor.id, child.id).expect(201);
    await loc('Sub other', region.id).expect(201);
    const names = async (qs: string) => (await t().get(`/api/dcim/locations/?name__isw=Sub&limit=100&${qs}`).expect(200)).body.results.map((l: { name: string }) => l.name).sort();
    expect(await names(`subtree=${top.id}`)).toEqual(['Sub child', 'Sub floor', 'Sub top']);
    expect(await names(`subtree__n=${top.id}`)).toEqual(['Sub other']);
    expect(await names(`subtree__n=${child.id}`)).toEqual(['Sub other', 'Sub top']);
  });

  it('deletes a location together with its descendants unless something protects them', async () => {
    const top = (await loc('Doomed', region.id).expect(201)).body;
    const child = (await loc('Doomed child', site.id, top.id).expect(201)).body;
    await t().del(`/api/dcim/locations/${top.id}/`).expect(204);
    await t().get(`/api/dcim/locations/${child.id}/`).expect(404);
  });
});
