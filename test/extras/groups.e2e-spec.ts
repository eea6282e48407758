import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Dynamic groups as Nautobot 2.4 serves them: filter-defined, static and group-of-groups
 * membership through `members/` (scoped by the member model's permissions, a bounded number of
 * statements whatever the depth), the rules and messages of groups and memberships, static
 * associations deleted with their object, the `dynamic_groups` filter, and config contexts
 * assigned by dynamic group.
 */
eachDatabase(
  'dynamic groups',
  (t) => {
    const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
    const names = (body: any) => body.results.map((r: any) => r.name).sort();
    const members = async (id: string, token?: string, query = '') => (await t().get(`/api/extras/dynamic-groups/${id}/members/${query}`, token).expect(200)).body;
    let devices: any[];
    let site: any;
    let other: any;
    let planned: any;
    const group = (body: object) => post('/api/extras/dynamic-groups/', { content_type: 'dcim.device', ...body });
    const member = (parent: any, child: any, operator: string, weight: number) => post('/api/extras/dynamic-group-memberships/', { parent_group: parent.id, group: child.id, operator, weight });

    beforeAll(async () => {
      const siteType = await post('/api/dcim/location-types/', { name: 'DG Site', content_types: ['dcim.device'] });
      site = await post('/api/dcim/locations/', { name: 'DG-AMS', location_type: siteType.id, status: 'Active' });
      other = await post('/api/dcim/locations/', { name: 'DG-NYC', location_type: siteType.id, status: 'Active' });
      const role = await post('/api/extras/roles/', { name: 'DG Router', content_types: ['dcim.device'] });
      const maker = await post('/api/dcim/manufacturers/', { name: 'DG Maker' });
      const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'DG-1' });
      planned = await post('/api/extras/statuses/', { name: 'DG Planned', content_types: ['dcim.device'] });
      // d0..d5: even ones at AMS, odd at NYC; d0, d1, d2 Active, the rest planned.
      devices = (
        await t()
          .post('/api/dcim/devices/', [0, 1, 2, 3, 4, 5].map((i) => ({ name: `d${i}`, device_type: type.id, role: role.id, location: i % 2 ? other.id : site.id, status: i < 3 ? 'Active' : planned.id })))
          .expect(201)
      ).body;
    });

    it('lists the members of a filter-defined group in the model representation, with depth and pagination', async () => {
      const ams = await group({ name: 'dg-ams', filter: { location: ['DG-AMS'] } });
      expect(ams).toMatchObject({ group_type: { value: 'dynamic-filter', label: 'Filter-defined' }, content_type: 'dcim.device', filter: { location: ['DG-AMS'] }, children: [], tenant: null, tags: [] });
      const body = await members(ams.id);
      expect(body.count).toBe(3);
      expect(names(body)).toEqual(['d0', 'd2', 'd4']);
      expect(body.results[0].object_type).toBe('dcim.device');
      expect(body.results[0].location).toMatchObject({ id: site.id, object_type: 'dcim.location' });
      expect(body.results[0].location).not.toHaveProperty('name');
      const deep = await members(ams.id, undefined, '?depth=1&limit=2');
      expect(deep.results).toHaveLength(2);
      expect(deep.results[0].location.name).toBe('DG-AMS');
      expect(deep.next).toContain(`/api/extras/dynamic-groups/${ams.id}/members/?`);
      // A filter parameter is not one of members/: ignored.
      expect((await members(ams.id, undefined, '?name=d0')).count).toBe(3);
      // Membership follows the objects: a device that moves joins.
      await t().patch(`/api/dcim/devices/${devices[1].id}/`, { location: site.id }).expect(200);
      expect(names(await members(ams.id))).toEqual(['d0', 'd1', 'd2', 'd4']);
      await t().patch(`/api/dcim/devices/${devices[1].id}/`, { location: other.id }).expect(200);
    });

    it('refuses a filter the content type list refuses, with its messages, and other bad groups', async () => {
      const unknown = (await t().post('/api/extras/dynamic-groups/', { name: 'bad', content_type: 'dcim.device', filter: { no_such: ['x'] } }).expect(400)).body;
      expect(unknown).toEqual({ no_such: ['Unknown filter field'] });
      const value = (await t().post('/api/extras/dynamic-groups/', { name: 'bad', content_type: 'dcim.device', filter: { location: ['nowhere'] } }).expect(400)).body;
      expect(value).toEqual({ location: ['Select a valid choice. nowhere is not one of the available choices.'] });
      expect((await t().post('/api/extras/dynamic-groups/', { name: 'bad', content_type: 'dcim.device', filter: ['x'] }).expect(400)).body).toEqual({ filter: ['Filter must be a dict'] });
      expect((await t().post('/api/extras/dynamic-groups/', { name: 'bad', content_type: 'dcim.device', group_type: 'static', filter: { name: ['x'] } }).expect(400)).body).toEqual({
        filter: ['Filter can only be set for groups of type `dynamic-filter`.'],
      });
      expect((await t().post('/api/extras/dynamic-groups/', { name: 'bad', content_type: 'dcim.nothing' }).expect(400)).body).toEqual({ content_type: ['Invalid content type: dcim.nothing'] });
      const g = await group({ name: 'dg-fixed', filter: { name: ['d0'] } });
      expect((await t().patch(`/api/extras/dynamic-groups/${g.id}/`, { content_type: 'dcim.location' }).expect(400)).body).toEqual({ content_type: ['ContentType cannot be changed once created'] });
      expect((await t().get('/api/extras/dynamic-groups/?name=bad').expect(200)).body.count).toBe(0);
    });

    it('combines groups of groups with union, intersection and difference, in weight order, at any depth', async () => {
      const ams = await group({ name: 'set-ams', filter: { location: ['DG-AMS'] } });
      const active = await group({ name: 'set-active', filter: { status: ['Active'] } });
      const d4 = await group({ name: 'set-d4', filter: { name: ['d4'] } });
      const both = await group({ name: 'set-both', group_type: 'dynamic-set' });
      await member(both, ams, 'union', 10);
      await member(both, active, 'intersection', 20);
      expect(names(await members(both.id))).toEqual(['d0', 'd2']);
      const either = await group({ name: 'set-either', group_type: 'dynamic-set' });
      await member(either, ams, 'union', 10);
      await member(either, active, 'union', 20);
      await member(either, d4, 'difference', 30);
      expect(names(await members(either.id))).toEqual(['d0', 'd1', 'd2']);
      // Nested three deep: (either) minus (both).
      const top = await group({ name: 'set-top', group_type: 'dynamic-set' });
      await member(top, either, 'union', 10);
      await member(top, both, 'difference', 20);
      expect(names(await members(top.id))).toEqual(['d1']);
      expect((await t().get(`/api/extras/dynamic-groups/${top.id}/`).expect(200)).body.children).toHaveLength(2);
      // The cost of a page does not grow with the depth of the group: one level more costs nothing more.
      const higher = await group({ name: 'set-higher', group_type: 'dynamic-set' });
      await member(higher, top, 'union', 10);
      expect(names(await members(higher.id))).toEqual(['d1']);
      await members(top.id);
      const deep = await t().countStatements(() => members(top.id));
      const deeper = await t().countStatements(() => members(higher.id));
      expect(deeper).toBe(deep);
      // The same through the list filter, `__n` too.
      expect(names((await t().get(`/api/dcim/devices/?dynamic_groups=set-top`).expect(200)).body)).toEqual(['d1']);
      expect(names((await t().get(`/api/dcim/devices/?dynamic_groups__n=${top.id}&name__isw=d`).expect(200)).body)).toEqual(['d0', 'd2', 'd3', 'd4', 'd5']);
      await t().get('/api/dcim/devices/?dynamic_groups=no-such-group').expect(400);
      // A group inside another is protected.
      await t().del(`/api/extras/dynamic-groups/${either.id}/`).expect(409);
    });

    it('refuses memberships the reference refuses: parent type, static child, content type, self, cycles', async () => {
      const a = await group({ name: 'cyc-a', group_type: 'dynamic-set' });
      const b = await group({ name: 'cyc-b', group_type: 'dynamic-set' });
      const c = await group({ name: 'cyc-c', group_type: 'dynamic-set' });
      const f = await group({ name: 'cyc-f', filter: { name: ['d0'] } });
      const s = await group({ name: 'cyc-s', group_type: 'static' });
      const loc = await post('/api/extras/dynamic-groups/', { name: 'cyc-loc', content_type: 'dcim.location' });
      const refuse = async (parent: any, child: any) => (await t().post('/api/extras/dynamic-group-memberships/', { parent_group: parent.id, group: child.id, operator: 'union', weight: 10 }).expect(400)).body;
      expect(await refuse(f, a)).toEqual({ parent_group: ['A parent group must be of `group_type` `"dynamic-set"`.'] });
      expect(await refuse(a, s)).toEqual({ group: ['Groups of `group_type` `"static"` may not be child groups at this time.'] });
      expect(await refuse(a, loc)).toEqual({ group: ['ContentType for group and parent_group must match'] });
      expect(await refuse(a, a)).toEqual({ group: ['Cannot add group as a child of itself'] });
      await member(a, b, 'union', 10);
      await member(b, c, 'union', 10);
      expect(await refuse(c, a)).toEqual({ group: ['Cannot add ancestor as a child'] });
      // Within one batch too: nothing is written.
      const batch = await t()
        .post('/api/extras/dynamic-group-memberships/', [
          { parent_group: c.id, group: f.id, operator: 'union', weight: 10 },
          { parent_group: c.id, group: b.id, operator: 'union', weight: 20 },
        ])
        .expect(400);
      expect(batch.body[1]).toEqual({ group: ['Cannot add ancestor as a child'] });
      expect((await t().get(`/api/extras/dynamic-group-memberships/?parent_group=${c.id}`).expect(200)).body.count).toBe(0);
    });

    it('holds static members, deleted with their object, and checks the association', async () => {
      const s = await group({ name: 'static-1', group_type: 'static' });
      const extra = await post('/api/dcim/devices/', { name: 'd-static', device_type: devices[0].device_type.id, role: devices[0].role.id, location: site.id, status: 'Active' });
      const link = await post('/api/extras/static-group-associations/', { dynamic_group: s.id, associated_object_type: 'dcim.device', associated_object_id: extra.id });
      expect(link).toMatchObject({ associated_object_type: 'dcim.device', associated_object_id: extra.id, associated_object: { id: extra.id, object_type: 'dcim.device' } });
      await post('/api/extras/static-group-associations/', { dynamic_group: s.id, associated_object_type: 'dcim.device', associated_object_id: devices[5].id });
      expect(names(await members(s.id))).toEqual(['d-static', 'd5']);
      expect((await t().get(`/api/extras/dynamic-groups/?member_id=${extra.id}`).expect(200)).body.results.map((g: any) => g.name)).toEqual(['static-1']);
      const wrongType = (await t().post('/api/extras/static-group-associations/', { dynamic_group: s.id, associated_object_type: 'dcim.location', associated_object_id: site.id }).expect(400)).body;
      expect(wrongType).toEqual({ associated_object_type: ['Must match the dynamic_group.content_type'] });
      const dyn = await group({ name: 'static-not', filter: {} });
      const notStatic = (await t().post('/api/extras/static-group-associations/', { dynamic_group: dyn.id, associated_object_type: 'dcim.device', associated_object_id: extra.id }).expect(400)).body;
      expect(notStatic).toEqual({ dynamic_group: ['Group static-not is not staticly defined, adding members directly is not permitted.'] });
      await t().del(`/api/dcim/devices/${extra.id}/`).expect(204);
      await t().get(`/api/extras/static-group-associations/${link.id}/`).expect(404);
      expect(names(await members(s.id))).toEqual(['d5']);
    });

    it('scopes members by the member model permissions', async () => {
      const all = await group({ name: 'perm-all', filter: { name: ['d0', 'd1', 'd2'] } });
      const some = await t().userWith('dg-some', [
        { types: ['extras.dynamicgroup'], actions: ['view'] },
        { types: ['dcim.device'], actions: ['view'], constraints: { name: 'd1' } },
      ]);
      const body = await members(all.id, some);
      expect(body.count).toBe(1);
      expect(body.results[0].id).toBe(devices[1].id);
      const none = await t().userWith('dg-none', [{ types: ['extras.dynamicgroup'], actions: ['view'] }]);
      expect((await members(all.id, none)).count).toBe(0);
      const nothing = await t().userWith('dg-nothing', [{ types: ['dcim.device'], actions: ['view'] }]);
      await t().get(`/api/extras/dynamic-groups/${all.id}/members/`, nothing).expect(403);
    });

    it('gives config contexts by dynamic group, a page in a bounded number of statements', async () => {
      const ams = await group({ name: 'cc-ams', filter: { location: ['DG-AMS'] } });
      const active = await group({ name: 'cc-active', filter: { status: ['Active'] } });
      const set = await group({ name: 'cc-set', group_type: 'dynamic-set' });
      await member(set, ams, 'union', 10);
      await member(set, active, 'intersection', 20);
      const locGroup = await post('/api/extras/dynamic-groups/', { name: 'cc-loc', content_type: 'dcim.location' });
      const refused = (await t().post('/api/extras/config-contexts/', { name: 'cc-bad', data: { x: 1 }, dynamic_groups: [locGroup.id] }).expect(400)).body;
      expect(refused).toHaveProperty('dynamic_groups');
      const cc = await post('/api/extras/config-contexts/', { name: 'cc-ams-active', weight: 10, data: { ams_active: true }, dynamic_groups: [set.id] });
      expect(cc.dynamic_groups).toEqual([expect.objectContaining({ id: set.id })]);
      await post('/api/extras/config-contexts/', { name: 'cc-active', weight: 20, data: { active: true }, dynamic_groups: [active.id] });
      const page = async (limit: number) => {
        let body: any;
        const n = await t().countStatements(async () => {
          body = (await t().get(`/api/dcim/devices/?name__isw=d&name__n=d-static&limit=${limit}&include=config_context`).expect(200)).body;
        });
        return { n, body };
      };
      await page(1);
      const [one, all] = [await page(1), await page(6)];
      expect(all.n).toBe(one.n);
      const byName = Object.fromEntries(all.body.results.map((d: any) => [d.name, d.config_context]));
      expect(byName).toEqual({ d0: { ams_active: true, active: true }, d1: { active: true }, d2: { ams_active: true, active: true }, d3: {}, d4: {}, d5: {} });
      expect((await t().get(`/api/extras/config-contexts/?dynamic_groups=${set.id}`).expect(200)).body.results.map((c: any) => c.name)).toEqual(['cc-ams-active']);
      await t().del('/api/extras/config-contexts/', [{ id: cc.id }]).expect(204);
    });
  },
  { env: { CREDENTIAL_CACHE: 'false' } },
);
