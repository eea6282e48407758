import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Rack groups, racks, rack reservations, power panels and power feeds as Nautobot 2.4 serves
 * them: the location rules and their messages, the unit rules of reservations, a power feed's
 * available power, and a rack's elevation.
 */
eachDatabase('racks and power', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  let campus: any;
  let site: any;
  let room: any;
  let other: any;

  beforeAll(async () => {
    const campusType = await post('/api/dcim/location-types/', { name: 'Campus', content_types: [] });
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', parent: campusType.id, content_types: ['dcim.rackgroup', 'dcim.rack', 'dcim.powerpanel'] });
    const roomType = await post('/api/dcim/location-types/', { name: 'Room', parent: siteType.id, content_types: ['dcim.rackgroup', 'dcim.rack', 'dcim.powerpanel'] });
    campus = await post('/api/dcim/locations/', { name: 'Campus 1', location_type: campusType.id, status: 'Active' });
    site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, parent: campus.id, status: 'Active' });
    room = await post('/api/dcim/locations/', { name: 'Room 1', location_type: roomType.id, parent: site.id, status: 'Active' });
    other = await post('/api/dcim/locations/', { name: 'AMS2', location_type: siteType.id, parent: campus.id, status: 'Active' });
  });

  it('attaches racks, rack groups and power panels only to locations whose type lists them', async () => {
    expect(await refuse('/api/dcim/racks/', { name: 'R0', location: campus.id, status: 'Active' })).toEqual({ location: ['Racks may not associate to locations of type "Campus".'] });
    expect(await refuse('/api/dcim/rack-groups/', { name: 'G0', location: campus.id })).toEqual({ location: ['Rack groups may not associate to locations of type "Campus".'] });
    expect(await refuse('/api/dcim/power-panels/', { name: 'P0', location: campus.id })).toEqual({ location: ['Power panels may not associate to locations of type "Campus".'] });
    expect(await refuse('/api/dcim/racks/', { name: 'R0', status: 'Active' })).toEqual({ location: ['This field is required.'] });
  });

  it('keeps rack groups within their parent location and names unique per location', async () => {
    const floor = await post('/api/dcim/rack-groups/', { name: 'Floor 1', location: site.id, description: 'first floor' });
    const cage = await post('/api/dcim/rack-groups/', { name: 'Cage A', location: room.id, parent: floor.id });
    expect(cage).toMatchObject({ parent: { id: floor.id }, location: { id: room.id }, rack_count: 0, tree_depth: 1 });
    expect(await refuse('/api/dcim/rack-groups/', { name: 'Cage B', location: other.id, parent: floor.id })).toEqual({
      location: ['Location "AMS2" is not descended from parent rack group "Floor 1" location "AMS1".'],
    });
    expect(await refuse('/api/dcim/rack-groups/', { name: 'Floor 1', location: site.id })).toEqual({ non_field_errors: ['The fields location, name must make a unique set.'] });
    await post('/api/dcim/rack-groups/', { name: 'Floor 1', location: other.id });
    const names = (await t().get(`/api/dcim/rack-groups/?location=${site.id}`).expect(200)).body.results.map((g: any) => g.name).sort();
    expect(names).toEqual(['Cage A', 'Floor 1']);
  });

  it('checks a rack group location, outer dimensions and unique names, asset tags and facility ids', async () => {
    const group = await post('/api/dcim/rack-groups/', { name: 'Rack rules group', location: room.id });
    expect(await refuse('/api/dcim/racks/', { name: 'R1', location: site.id, rack_group: group.id, status: 'Active' })).toEqual({
      rack_group: ['The assigned rack group "Rack rules group" belongs to a location ("Room 1") that does not include location "AMS1".'],
    });
    expect(await refuse('/api/dcim/racks/', { name: 'R1', location: room.id, status: 'Active', outer_depth: 1000 })).toEqual({
      non_field_errors: ['Must specify a unit when setting an outer width/depth'],
    });
    const rack = await post('/api/dcim/racks/', { name: 'R1', facility_id: 'F-1', location: room.id, rack_group: group.id, status: 'Active', asset_tag: 'A1', outer_width: 600, outer_unit: 'mm' });
    expect(rack).toMatchObject({
      display: 'R1 (F-1)',
      u_height: 42,
      width: { value: 19, label: '19 inches' },
      desc_units: false,
      outer_unit: { value: 'mm', label: 'Millimeters' },
      type: null,
      device_count: 0,
      power_feed_count: 0,
    });
    const cleared = (await t().patch(`/api/dcim/racks/${rack.id}/`, { outer_width: null }).expect(200)).body;
    expect(cleared.outer_unit).toBeNull();
    expect(await refuse('/api/dcim/racks/', { name: 'R1', location: room.id, rack_group: group.id, status: 'Active' })).toEqual({ non_field_errors: ['The fields rack_group, name must make a unique set.'] });
    expect(await refuse('/api/dcim/racks/', { name: 'R2', facility_id: 'F-1', location: room.id, rack_group: group.id, status: 'Active' })).toEqual({
      non_field_errors: ['The fields rack_group, facility_id must make a unique set.'],
    });
    expect(await refuse('/api/dcim/racks/', { name: 'R2', location: room.id, status: 'Active', asset_tag: 'A1' })).toEqual({ asset_tag: ['rack with this Asset tag already exists.'] });
    // Outside a group, names may repeat, and blank facility ids and asset tags never collide.
    await post('/api/dcim/racks/', { name: 'Loose', location: room.id, status: 'Active', facility_id: '', asset_tag: '' });
    const again = await post('/api/dcim/racks/', { name: 'Loose', location: room.id, status: 'Active', facility_id: '', asset_tag: '' });
    expect(again).toMatchObject({ facility_id: null, asset_tag: null });
    expect((await refuse('/api/dcim/racks/', { name: 'Tall', location: room.id, status: 'Active', u_height: 501 })).u_height).toEqual(['Ensure this value is less than or equal to 500.']);
    expect((await refuse('/api/dcim/racks/', { name: 'Wide', location: room.id, status: 'Active', width: 20 })).width).toHaveLength(1);
    expect((await refuse('/api/dcim/racks/', { name: 'Failing', location: room.id, status: 'Failed' })).status[0]).toMatch(/^Related object not found/);
    expect((await t().get(`/api/dcim/locations/${room.id}/`).expect(200)).body.rack_count).toBe(3);
    expect((await t().get(`/api/dcim/rack-groups/${group.id}/`).expect(200)).body.rack_count).toBe(1);
    expect((await t().get(`/api/dcim/racks/?rack_group=${group.id}&q=f-1`).expect(200)).body.count).toBe(1);
  });

  it('reserves units within the rack, each once, for the requester by default', async () => {
    const rack = await post('/api/dcim/racks/', { name: 'Reserved rack', location: site.id, status: 'Active', u_height: 10 });
    expect(await refuse('/api/dcim/rack-reservations/', { rack: rack.id, units: [9, 11, 12], description: 'x' })).toEqual({ units: ['Invalid unit(s) for 10U rack: 11, 12'] });
    expect(await refuse('/api/dcim/rack-reservations/', { rack: rack.id, units: [1] })).toEqual({ description: ['This field is required.'] });
    expect(await refuse('/api/dcim/rack-reservations/', { rack: rack.id, units: 'one', description: 'x' })).toEqual({ units: ['Expected a list of items but got type "str".'] });
    const first = await post('/api/dcim/rack-reservations/', { rack: rack.id, units: [1, 2, 3], description: 'first' });
    expect(first).toMatchObject({ units: [1, 2, 3], display: 'Reservation for rack Reserved rack', tenant: null });
    const me = (await t().get('/api/users/users/?username=admin').expect(200)).body.results[0];
    expect(first.user.id).toBe(me.id);
    expect(await refuse('/api/dcim/rack-reservations/', { rack: rack.id, units: [3, 4], description: 'second' })).toEqual({ units: ['The following units have already been reserved: 3'] });
    const batch = await t().post('/api/dcim/rack-reservations/', [{ rack: rack.id, units: [5, 6], description: 'a' }, { rack: rack.id, units: [6, 7], description: 'b' }]).expect(400);
    expect(batch.body).toEqual([{}, { units: ['The following units have already been reserved: 6'] }]);
    // An update is checked against the others only, not against itself.
    await t().patch(`/api/dcim/rack-reservations/${first.id}/`, { units: [2, 3, 4] }).expect(200);
  });

  it('keeps power panels and feeds in one location hierarchy and computes available power', async () => {
    const group = await post('/api/dcim/rack-groups/', { name: 'Power group', location: other.id });
    expect(await refuse('/api/dcim/power-panels/', { name: 'P1', location: site.id, rack_group: group.id })).toEqual({
      rack_group: ['Rack group "Power group" belongs to a location ("AMS2") that does not contain "AMS1".'],
    });
    const panel = await post('/api/dcim/power-panels/', { name: 'P1', location: site.id, breaker_position_count: 4 });
    expect(await refuse('/api/dcim/power-panels/', { name: 'P1', location: site.id })).toEqual({ non_field_errors: ['The fields location, name must make a unique set.'] });
    const far = await post('/api/dcim/racks/', { name: 'Far rack', location: other.id, status: 'Active' });
    const near = await post('/api/dcim/racks/', { name: 'Near rack', location: room.id, status: 'Active' });
    expect(await refuse('/api/dcim/power-feeds/', { name: 'F1', power_panel: panel.id, rack: far.id, status: 'Active' })).toEqual({
      rack: ['Rack "Far rack" (AMS2) and power panel "P1" (AMS1) are not in the same location hierarchy.'],
    });
    const feed = await post('/api/dcim/power-feeds/', { name: 'F1', power_panel: panel.id, rack: near.id, status: 'Active' });
    expect(feed).toMatchObject({ type: { value: 'primary' }, supply: { value: 'ac' }, phase: { value: 'single-phase' }, voltage: 120, amperage: 20, max_utilization: 80, available_power: 1920 });
    const three = (await t().patch(`/api/dcim/power-feeds/${feed.id}/`, { phase: 'three-phase', voltage: 208, amperage: 30 }).expect(200)).body;
    expect(three.available_power).toBe(Math.round(208 * 30 * 0.8 * 1.732));
    expect(await refuse('/api/dcim/power-feeds/', { name: 'F2', power_panel: panel.id, status: 'Active', voltage: -48 })).toEqual({ voltage: ['Voltage cannot be negative for AC supply'] });
    expect((await post('/api/dcim/power-feeds/', { name: 'F2', power_panel: panel.id, status: 'Offline', voltage: -48, supply: 'dc' })).available_power).toBe(768);
    expect(await refuse('/api/dcim/power-feeds/', { name: 'F3', power_panel: panel.id, status: 'Active', voltage: 0 })).toEqual({ voltage: ['This value may not be 0.'] });
    expect(await refuse('/api/dcim/power-feeds/', { name: 'F1', power_panel: panel.id, status: 'Active' })).toEqual({ non_field_errors: ['The fields power_panel, name must make a unique set.'] });
    expect(await refuse('/api/dcim/power-feeds/', { name: 'F3', power_panel: panel.id, destination_panel: panel.id, status: 'Active' })).toEqual({ destination_panel: ['A power feed cannot connect a panel to itself'] });
    expect(await refuse('/api/dcim/power-feeds/', { name: 'F3', power_panel: panel.id, status: 'Active', breaker_position: 3, breaker_pole_count: 2 })).toEqual({
      breaker_position: ['Breaker configuration starting at position 3 with 2 poles would occupy positions [3, 5], but panel only has 4 breaker positions'],
    });
    const breaker = await post('/api/dcim/power-feeds/', { name: 'F3', power_panel: panel.id, status: 'Active', breaker_position: 1 });
    expect(breaker.breaker_pole_count).toEqual({ value: 1, label: '1-Pole' });
    expect(await refuse('/api/dcim/power-feeds/', { name: 'F4', power_panel: panel.id, status: 'Active', breaker_position: 1 })).toEqual({ breaker_position: ['Breaker position 1 conflicts with feed "F3" (occupies 1)'] });
    expect((await t().get(`/api/dcim/power-panels/${panel.id}/`).expect(200)).body.power_feed_count).toBe(3);
    expect((await t().get(`/api/dcim/racks/${near.id}/`).expect(200)).body.power_feed_count).toBe(1);
    await t().del(`/api/dcim/power-panels/${panel.id}/`).expect(409);
  });

  it('serves a rack elevation: units top first, by face, filtered and paginated; 404 outside the requester view', async () => {
    const rack = await post('/api/dcim/racks/', { name: 'Elevated', location: site.id, status: 'Active', u_height: 12 });
    const url = `/api/dcim/racks/${rack.id}/elevation/`;
    const all = (await t().get(url).expect(200)).body;
    expect(all.count).toBe(12);
    expect(all.results[0]).toEqual({ id: 12, name: 'U12', face: { value: 'front', label: 'Front' }, occupied: false });
    expect(all.results.map((u: any) => u.id)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const rear = (await t().get(`${url}?face=rear&limit=5&offset=5`).expect(200)).body;
    expect(rear.results.map((u: any) => [u.id, u.face.value])).toEqual([[7, 'rear'], [6, 'rear'], [5, 'rear'], [4, 'rear'], [3, 'rear']]);
    expect(rear.next).toMatch(/\/elevation\/\?face=rear&limit=5&offset=10$/);
    expect(rear.previous).toMatch(/\/elevation\/\?face=rear&limit=5$/);
    expect((await t().get(`${url}?q=1`).expect(200)).body.results.map((u: any) => u.id)).toEqual([12, 11, 10, 1]);
    expect((await t().get(`${url}?is_occupied=true`).expect(200)).body.count).toBe(0);
    expect((await t().get(`${url}?expand_devices=false&exclude=${rack.id}`).expect(200)).body.count).toBe(12);
    const desc = (await t().patch(`/api/dcim/racks/${rack.id}/`, { desc_units: true }).expect(200)).body;
    expect(desc.desc_units).toBe(true);
    expect((await t().get(`${url}?limit=2`).expect(200)).body.results.map((u: any) => u.name)).toEqual(['U1', 'U2']);
    expect((await t().get(`${url}?face=side&exclude=nope&expand_devices=maybe`).expect(400)).body).toEqual({
      face: ['"side" is not a valid choice.'],
      exclude: ['Must be a valid UUID.'],
      expand_devices: ['Must be a valid boolean.'],
    });
    await t().get('/api/dcim/racks/00000000-0000-4000-8000-000000000000/elevation/').expect(404);
    const hidden = await post('/api/dcim/racks/', { name: 'Hidden', location: other.id, status: 'Active' });
    const reader = await t().userWith('rack-reader', [{ types: ['dcim.rack'], actions: ['view'], constraints: { location: site.id } }]);
    await t().get(url, reader).expect(200);
    expect((await t().get(`/api/dcim/racks/${hidden.id}/elevation/`, reader).expect(404)).body).toEqual({ detail: 'No Rack matches the given query.' });
    const stranger = await t().userWith('rack-stranger', [{ types: ['dcim.location'], actions: ['view'] }]);
    await t().get(url, stranger).expect(403);
  });
});
