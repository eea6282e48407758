import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Virtual chassis as Nautobot 2.4 serves them: the master joins the chassis it is created with,
 * members at unique positions, the reference's messages for positions and masters, members set
 * free when their chassis goes, a master protected, member counts, and the filters of chassis
 * and of devices by membership.
 */
eachDatabase('virtual chassis', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const get = async (path: string) => (await t().get(path).expect(200)).body;
  const names = async (path: string) => (await get(path)).results.map((o: any) => o.name);
  const VC = '/api/dcim/virtual-chassis/';
  const DEVICES = '/api/dcim/devices/';
  let site: any;
  let room: any;
  let tenant: any;
  let device: (body: object) => object;

  beforeAll(async () => {
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.device'] });
    const roomType = await post('/api/dcim/location-types/', { name: 'Room', parent: siteType.id, content_types: ['dcim.device'] });
    site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, status: 'Active' });
    room = await post('/api/dcim/locations/', { name: 'Room 1', location_type: roomType.id, parent: site.id, status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'Juniper' });
    const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300' });
    const role = await post('/api/extras/roles/', { name: 'Switch', content_types: ['dcim.device'] });
    tenant = await post('/api/tenancy/tenants/', { name: 'Acme' });
    device = (body: object) => ({ device_type: type.id, role: role.id, status: 'Active', location: site.id, ...body });
  });

  it('serves a chassis with the reference fields; its master joins it at position 1, and a re-sent chassis reads back the same', async () => {
    const sw1 = await post(DEVICES, device({ name: 'stack1-sw1', vc_priority: 255 }));
    expect(sw1).toMatchObject({ virtual_chassis: null, vc_position: null, vc_priority: 255 });
    const vc = await post(VC, { name: 'stack1', domain: 'stack1.example', master: sw1.id });
    expect(vc).toMatchObject({ display: 'stack1', name: 'stack1', domain: 'stack1.example', member_count: 1, object_type: 'dcim.virtualchassis', natural_slug: expect.any(String), notes_url: expect.stringContaining(`/api/dcim/virtual-chassis/${vc.id}/notes/`), tags: [], custom_fields: {} });
    expect(Object.keys(vc.master).sort()).toEqual(['id', 'object_type', 'url']);
    expect(vc.master).toMatchObject({ id: sw1.id, object_type: 'dcim.device' });
    expect(await get(`${DEVICES}${sw1.id}/`)).toMatchObject({ virtual_chassis: { id: vc.id, object_type: 'dcim.virtualchassis' }, vc_position: 1, vc_priority: 255 });
    // What an idempotent client (Ansible's virtual_chassis module) sends again changes nothing.
    const before = await get(`${VC}${vc.id}/`);
    const again = (await t().patch(`${VC}${vc.id}/`, { name: 'stack1', domain: 'stack1.example', master: sw1.id }).expect(200)).body;
    expect(again.master).toEqual(before.master);
    expect({ ...(await get(`${VC}${vc.id}/`)), last_updated: null }).toEqual({ ...before, last_updated: null });
    expect((await get(`${VC}${vc.id}/?depth=1`)).master).toMatchObject({ id: sw1.id, name: 'stack1-sw1' });
    expect(await refuse(VC, { name: 'stack1' })).toEqual({ name: ['virtual chassis with this Name already exists.'] });
    expect(await refuse(VC, { name: 'x'.repeat(256) })).toEqual({ name: ['Ensure this field has no more than 255 characters.'] });
    // A master already at a position keeps it.
    const sw2 = await post(DEVICES, device({ name: 'stack2-sw1' }));
    const vc2 = await post(VC, { name: 'stack2', master: sw2.id });
    const member = await post(DEVICES, device({ name: 'stack2-sw3', virtual_chassis: vc2.id, vc_position: 3 }));
    const moved = await post(VC, { name: 'stack3', master: member.id });
    expect(await get(`${DEVICES}${member.id}/`)).toMatchObject({ virtual_chassis: { id: moved.id }, vc_position: 3 });
    // A device masters one chassis at most.
    expect(await refuse(VC, { name: 'stack4', master: sw1.id })).toEqual({ master: ['virtual chassis with this Master already exists.'] });
    const chassis = await post(VC, { name: 'unmastered' });
    expect(chassis).toMatchObject({ master: null, domain: '', member_count: 0 });
  });

  it('keeps member positions unique and defined, with the reference messages', async () => {
    const vc = await post(VC, { name: 'positions' });
    const a = await post(DEVICES, device({ name: 'pos-a', virtual_chassis: vc.id, vc_position: 1, vc_priority: 0 }));
    expect(await refuse(DEVICES, device({ name: 'pos-b', virtual_chassis: vc.id, vc_position: 1 }))).toEqual({ non_field_errors: ['Device with this Virtual chassis and Vc position already exists.'] });
    expect(await refuse(DEVICES, device({ name: 'pos-b', virtual_chassis: vc.id }))).toEqual({ vc_position: ['A device assigned to a virtual chassis must have its position defined.'] });
    expect(await refuse(DEVICES, device({ name: 'pos-b', virtual_chassis: vc.id, vc_position: 256 }))).toEqual({ vc_position: ['Ensure this value is less than or equal to 255.'] });
    expect(await refuse(DEVICES, device({ name: 'pos-b', vc_priority: -1 }))).toEqual({ vc_priority: ['Ensure this value is greater than or equal to 0.'] });
    const batch = await t().post(DEVICES, [device({ name: 'pos-c', virtual_chassis: vc.id, vc_position: 2 }), device({ name: 'pos-d', virtual_chassis: vc.id, vc_position: 2 })]).expect(400);
    expect(batch.body).toEqual([{}, { non_field_errors: ['Device with this Virtual chassis and Vc position already exists.'] }]);
    // A position without a chassis is allowed, as the reference allows it.
    expect((await post(DEVICES, device({ name: 'pos-e', vc_position: 1 }))).vc_position).toBe(1);
    expect((await t().patch(`${DEVICES}${a.id}/`, { vc_position: null }).expect(400)).body).toEqual({ vc_position: ['A device assigned to a virtual chassis must have its position defined.'] });
    // An unnamed member shows as "<chassis>:<position> (<id>)".
    const unnamed = await post(DEVICES, device({ name: null, virtual_chassis: vc.id, vc_position: 7 }));
    expect(unnamed.display).toBe(`positions:7 (${unnamed.id})`);
    expect((await get(`${DEVICES}?id=${unnamed.id}`)).results[0].display).toBe(`positions:7 (${unnamed.id})`);
  });

  it('refuses a master that is not a member, and the removal of the master from its chassis', async () => {
    const head = await post(DEVICES, device({ name: 'm-head' }));
    const vc = await post(VC, { name: 'mastered', master: head.id });
    const outsider = await post(DEVICES, device({ name: 'm-outsider' }));
    expect((await t().patch(`${VC}${vc.id}/`, { master: outsider.id }).expect(400)).body).toEqual({ master: ['The selected master (m-outsider) is not assigned to this virtual chassis.'] });
    const unnamed = await post(DEVICES, device({ name: '' }));
    expect((await t().patch(`${VC}${vc.id}/`, { master: unnamed.id }).expect(400)).body).toEqual({ master: [`The selected master (Juniper EX4300 (${unnamed.id})) is not assigned to this virtual chassis.`] });
    expect((await t().patch(`${DEVICES}${head.id}/`, { virtual_chassis: null, vc_position: null }).expect(400)).body).toEqual({
      virtual_chassis: ['The master device for the virtual chassis (mastered) may not be removed'],
    });
    const member = await post(DEVICES, device({ name: 'm-member', virtual_chassis: vc.id, vc_position: 2 }));
    expect((await t().patch(`${VC}${vc.id}/`, { master: member.id }).expect(200)).body.master.id).toBe(member.id);
    // The former master may leave now; the chassis may go without a master.
    await t().patch(`${DEVICES}${head.id}/`, { virtual_chassis: null, vc_position: null }).expect(200);
    expect((await t().patch(`${VC}${vc.id}/`, { master: null }).expect(200)).body.master).toBeNull();
  });

  it('protects a master device, and sets its members free when a chassis is deleted', async () => {
    const head = await post(DEVICES, device({ name: 'd-head', vc_priority: 200 }));
    const vc = await post(VC, { name: 'doomed', master: head.id });
    const member = await post(DEVICES, device({ name: 'd-member', virtual_chassis: vc.id, vc_position: 2, vc_priority: 100 }));
    const refused = await t().del(`${DEVICES}${head.id}/`).expect(409);
    expect(refused.body.detail).toBe(`Unable to delete object. 1 dependent objects were found: doomed (${vc.id})`);
    await t().del(`${DEVICES}${member.id}/`).expect(204);
    const other = await post(DEVICES, device({ name: 'd-other', virtual_chassis: vc.id, vc_position: 3, vc_priority: 1 }));
    await t().del(`${VC}${vc.id}/`).expect(204);
    for (const d of [head, other]) expect(await get(`${DEVICES}${d.id}/`)).toMatchObject({ virtual_chassis: null, vc_position: null, vc_priority: null });
    await t().del(`${DEVICES}${head.id}/`).expect(204);
  });

  it('counts members, one statement for a page whatever its size', async () => {
    const heads = [];
    for (const n of [1, 2, 3]) heads.push(await post(DEVICES, device({ name: `count-${n}` })));
    const vcs = [await post(VC, { name: 'count-a', master: heads[0].id }), await post(VC, { name: 'count-b', master: heads[1].id })];
    await post(DEVICES, device({ name: 'count-a2', virtual_chassis: vcs[0].id, vc_position: 2 }));
    await post(DEVICES, device({ name: 'count-a3', virtual_chassis: vcs[0].id, vc_position: 3 }));
    const listed = (await get(`${VC}?name__isw=count-`)).results;
    expect(listed.map((v: any) => [v.name, v.member_count])).toEqual([['count-a', 3], ['count-b', 1]]);
    await t().get(`${VC}?name=count-b`).expect(200); // warm the request's caches
    const one = await t().countStatements(() => t().get(`${VC}?name=count-b`).expect(200));
    await post(VC, { name: 'count-c', master: heads[2].id });
    const three = await t().countStatements(() => t().get(`${VC}?name__isw=count-`).expect(200));
    expect(three).toBe(one);
  });

  it('filters chassis by master, members, location, tenant and text, and devices by membership', async () => {
    const h1 = await post(DEVICES, device({ name: 'f-head1', tenant: tenant.id }));
    const h2 = await post(DEVICES, device({ name: 'f-head2', location: room.id }));
    const v1 = await post(VC, { name: 'filter-one', domain: 'alpha', master: h1.id });
    const v2 = await post(VC, { name: 'filter-two', domain: 'beta', master: h2.id });
    await post(VC, { name: 'filter-three' });
    const m = await post(DEVICES, device({ name: 'f-member', virtual_chassis: v1.id, vc_position: 2, vc_priority: 5 }));
    const only = (qs: string) => names(`${VC}?name__isw=filter-&${qs}`);
    expect(await only(`master=${h1.id}`)).toEqual(['filter-one']);
    expect(await only('master=f-head2')).toEqual(['filter-two']);
    expect(await only('members=f-member')).toEqual(['filter-one']);
    expect(await only('has_members=false')).toEqual(['filter-three']);
    expect(await only('has_members=true')).toEqual(['filter-one', 'filter-two']);
    expect(await only(`location=${room.id}`)).toEqual(['filter-two']);
    // The master's own location, not those below it (as the reference's filter).
    expect(await only('location=AMS1')).toEqual(['filter-one']);
    expect(await only('location__n=AMS1')).toEqual(['filter-three', 'filter-two']);
    expect(await only('tenant=Acme')).toEqual(['filter-one']);
    expect(await only('domain=beta')).toEqual(['filter-two']);
    expect(await only('q=f-memb')).toEqual(['filter-one']);
    expect(await only('q=ALPH')).toEqual(['filter-one']);
    expect((await t().get(`${VC}?master=no-such-device`).expect(400)).body).toEqual({ master: ['Select a valid choice. no-such-device is not one of the available choices.'] });
    const devices = (qs: string) => names(`${DEVICES}?name__isw=f-&${qs}`);
    expect(await devices('virtual_chassis=filter-one')).toEqual(['f-head1', 'f-member']);
    expect(await devices(`virtual_chassis=${v2.id}`)).toEqual(['f-head2']);
    expect(await devices('is_virtual_chassis_member=true&vc_position=2')).toEqual(['f-member']);
    expect(await devices('virtual_chassis_member=true')).toEqual(['f-head1', 'f-head2', 'f-member']);
    expect(await devices('vc_priority__gte=5')).toEqual(['f-member']);
    await post(DEVICES, device({ name: 'f-alone' }));
    expect(await devices('is_virtual_chassis_member=false')).toEqual(['f-alone']);
    expect((await t().get(`${DEVICES}?is_virtual_chassis_member=perhaps`).expect(400)).body).toHaveProperty('is_virtual_chassis_member');
    expect(m.vc_priority).toBe(5);
  });
});
