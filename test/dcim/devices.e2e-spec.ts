import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Devices as Nautobot 2.4 serves them: the location and rack rules with the reference's
 * messages, names unique per location and tenant, occupied units, and what devices make real
 * elsewhere (rack elevations, the device counts of locations, racks, types and platforms).
 */
eachDatabase('devices', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  let campus: any;
  let site: any;
  let room: any;
  let other: any;
  let maker: any;
  let oneU: any;
  let half: any;
  let twoU: any;
  let child: any;
  let zeroU: any;
  let role: any;
  let device: (body: object) => object;

  beforeAll(async () => {
    const campusType = await post('/api/dcim/location-types/', { name: 'Campus', content_types: [] });
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', parent: campusType.id, content_types: ['dcim.device', 'dcim.rack'] });
    const roomType = await post('/api/dcim/location-types/', { name: 'Room', parent: siteType.id, content_types: ['dcim.device', 'dcim.rack'] });
    campus = await post('/api/dcim/locations/', { name: 'Campus 1', location_type: campusType.id, status: 'Active' });
    site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, parent: campus.id, status: 'Active' });
    room = await post('/api/dcim/locations/', { name: 'Room 1', location_type: roomType.id, parent: site.id, status: 'Active' });
    other = await post('/api/dcim/locations/', { name: 'AMS2', location_type: siteType.id, parent: campus.id, status: 'Active' });
    maker = await post('/api/dcim/manufacturers/', { name: 'Juniper' });
    oneU = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300' });
    half = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Patch 1U', is_full_depth: false });
    twoU = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'MX204', u_height: 2 });
    child = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Blade', u_height: 0, subdevice_role: 'child' });
    zeroU = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'PDU', u_height: 0 });
    role = await post('/api/extras/roles/', { name: 'Switch', content_types: ['dcim.device'] });
    device = (body: object) => ({ device_type: oneU.id, role: role.id, status: 'Active', location: site.id, ...body });
  });

  it('serves a device with the reference fields, and its default statuses and required role', async () => {
    const d = await post('/api/dcim/devices/', device({ name: 'sw1', serial: 'S1', asset_tag: '', local_config_context_data: { ntp: ['10.0.0.1'] } }));
    expect(d).toMatchObject({
      display: 'sw1',
      name: 'sw1',
      serial: 'S1',
      asset_tag: null,
      rack: null,
      position: null,
      face: null,
      platform: null,
      tenant: null,
      comments: '',
      local_config_context_data: { ntp: ['10.0.0.1'] },
      device_type: { id: oneU.id },
      role: { id: role.id },
      location: { id: site.id },
    });
    expect(d.status.id).toBeDefined();
    const statuses = (await t().get('/api/extras/statuses/?content_types=dcim.device&limit=50').expect(200)).body.results.map((s: any) => s.name).sort();
    expect(statuses).toEqual(['Active', 'Decommissioning', 'Failed', 'Inventory', 'Offline', 'Planned', 'Staged']);
    expect(await refuse('/api/dcim/devices/', { device_type: oneU.id, status: 'Active', location: site.id })).toEqual({ role: ['This field is required.'] });
    const rackRole = await post('/api/extras/roles/', { name: 'Racks only', content_types: ['dcim.rack'] });
    expect((await refuse('/api/dcim/devices/', device({ role: rackRole.id }))).role[0]).toMatch(/^Related object not found/);
    expect(await refuse('/api/dcim/devices/', device({ location: campus.id }))).toEqual({ location: ['Devices may not associate to locations of type "Campus".'] });
    expect(await refuse('/api/dcim/devices/', device({ name: 'x'.repeat(65) }))).toEqual({ name: ['Ensure this field has no more than 64 characters.'] });
    await t().del(`/api/dcim/device-types/${oneU.id}/`).expect(409);
  });

  it('keeps names unique per location and tenant, with the reference messages, and unnamed devices free', async () => {
    const tenant = await post('/api/tenancy/tenants/', { name: 'Acme' });
    await post('/api/dcim/devices/', device({ name: 'core1' }));
    expect(await refuse('/api/dcim/devices/', device({ name: 'core1' }))).toEqual({ name: ['A device with this name already exists.'] });
    await post('/api/dcim/devices/', device({ name: 'core1', tenant: tenant.id }));
    expect(await refuse('/api/dcim/devices/', device({ name: 'core1', tenant: tenant.id }))).toEqual({ non_field_errors: ['The fields location, tenant, name must make a unique set.'] });
    await post('/api/dcim/devices/', device({ name: 'core1', location: room.id }));
    await post('/api/dcim/devices/', device({ name: null }));
    const unnamed = await post('/api/dcim/devices/', device({ name: '' }));
    expect(unnamed.name).toBeNull();
    expect(unnamed.display).toBe(`Juniper EX4300 (${unnamed.id})`);
    const listed = (await t().get(`/api/dcim/devices/?id=${unnamed.id}`).expect(200)).body.results;
    expect(listed.map((d: any) => d.display)).toEqual([`Juniper EX4300 (${unnamed.id})`]);
    const batch = await t().post('/api/dcim/devices/', [device({ name: 'twin' }), device({ name: 'twin' })]).expect(400);
    expect(batch.body).toEqual([{}, { name: ['A device with this name already exists.'] }]);
    const tagged = await post('/api/dcim/devices/', device({ name: 'tagged', asset_tag: 'T-1' }));
    expect(tagged.asset_tag).toBe('T-1');
    expect(await refuse('/api/dcim/devices/', device({ name: 'tagged2', asset_tag: 'T-1' }))).toEqual({ asset_tag: ['device with this Asset tag already exists.'] });
  });

  it('applies the rack, face and position rules with the reference messages', async () => {
    const rack = await post('/api/dcim/racks/', { name: 'R1', location: room.id, status: 'Active', u_height: 10 });
    const away = await post('/api/dcim/racks/', { name: 'R2', facility_id: 'F2', location: other.id, status: 'Active' });
    expect(await refuse('/api/dcim/devices/', device({ rack: away.id }))).toEqual({ rack: ['Rack "R2 (F2)" does not belong to location "AMS1" and its descendants.'] });
    expect(await refuse('/api/dcim/devices/', device({ location: room.id, rack: (await post('/api/dcim/racks/', { name: 'R3', location: site.id, status: 'Active' })).id }))).toEqual({
      rack: ['Rack "R3" does not belong to location "Room 1" and its descendants.'],
    });
    expect(await refuse('/api/dcim/devices/', device({ face: 'front' }))).toEqual({ face: ['Cannot select a rack face without assigning a rack.'] });
    expect(await refuse('/api/dcim/devices/', device({ position: 1 }))).toEqual({ position: ['Cannot select a rack position without assigning a rack.'] });
    expect(await refuse('/api/dcim/devices/', device({ rack: rack.id, position: 1 }))).toEqual({ face: ['Must specify rack face when defining rack position.'] });
    expect(await refuse('/api/dcim/devices/', device({ rack: rack.id, position: 0, face: 'front' }))).toEqual({ position: ['Ensure this value is greater than or equal to 1.'] });
    expect(await refuse('/api/dcim/devices/', device({ rack: rack.id, position: 1, face: 'front', device_type: zeroU.id }))).toEqual({
      position: ['A U0 device type (Juniper PDU) cannot be assigned to a rack position.'],
    });
    expect(await refuse('/api/dcim/devices/', device({ rack: rack.id, face: 'rear', device_type: child.id }))).toEqual({
      face: ['Child device types cannot be assigned to a rack face. This is an attribute of the parent device.'],
    });
    expect(await refuse('/api/dcim/devices/', device({ rack: rack.id, position: 10, face: 'front', device_type: twoU.id }))).toEqual({
      position: ['U10 is already occupied or does not have sufficient space to accommodate this device type: Juniper MX204 (2U)'],
    });
    const platform = await post('/api/dcim/platforms/', { name: 'EOS', manufacturer: (await post('/api/dcim/manufacturers/', { name: 'Arista' })).id });
    expect(await refuse('/api/dcim/devices/', device({ platform: platform.id }))).toEqual({
      platform: ["The assigned platform is limited to Arista device types, but this device's type belongs to Juniper."],
    });
    const zero = await post('/api/dcim/devices/', device({ location: room.id, rack: rack.id, device_type: zeroU.id }));
    expect(zero).toMatchObject({ rack: { id: rack.id }, position: null, face: null });
  });

  it('refuses units already taken, by face and depth, in one request or across requests', async () => {
    const rack = await post('/api/dcim/racks/', { name: 'Occupied', location: site.id, status: 'Active', u_height: 12 });
    const at = (type: any, position: number, face: string, name: string) => device({ name, rack: rack.id, device_type: type.id, position, face });
    const big = await post('/api/dcim/devices/', at(twoU, 5, 'front', 'big'));
    const taken = 'is already occupied or does not have sufficient space to accommodate this device type';
    // a full-depth device takes both faces
    expect(await refuse('/api/dcim/devices/', at(half, 6, 'rear', 'h1'))).toEqual({ position: [`U6 ${taken}: Juniper Patch 1U (1U)`] });
    expect(await refuse('/api/dcim/devices/', at(twoU, 4, 'rear', 'b2'))).toEqual({ position: [`U4 ${taken}: Juniper MX204 (2U)`] });
    // half-depth devices share a unit, one a face
    await post('/api/dcim/devices/', at(half, 1, 'front', 'h-front'));
    await post('/api/dcim/devices/', at(half, 1, 'rear', 'h-rear'));
    expect(await refuse('/api/dcim/devices/', at(oneU, 1, 'front', 'full'))).toEqual({ position: [`U1 ${taken}: Juniper EX4300 (1U)`] });
    // within one request
    const both = await t().post('/api/dcim/devices/', [at(twoU, 8, 'front', 'p8'), at(oneU, 9, 'rear', 'p9')]).expect(400);
    expect(both.body).toEqual([{}, { position: [`U9 ${taken}: Juniper EX4300 (1U)`] }]);
    // moving a device is checked against the others, not against itself
    expect((await t().patch(`/api/dcim/devices/${big.id}/`, { position: 6 }).expect(200)).body.position).toBe(6);
    expect((await t().patch(`/api/dcim/devices/${big.id}/`, { position: 1 }).expect(400)).body).toEqual({ position: [`U1 ${taken}: Juniper MX204 (2U)`] });
    await t().del(`/api/dcim/racks/${rack.id}/`).expect(409);
  });

  it('keeps racks tall enough and device types small enough for the devices mounted', async () => {
    const rack = await post('/api/dcim/racks/', { name: 'Sized', location: site.id, status: 'Active', u_height: 10 });
    const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Growing' });
    await post('/api/dcim/devices/', device({ name: 'top', rack: rack.id, device_type: twoU.id, position: 7, face: 'front' }));
    const low = await post('/api/dcim/devices/', device({ name: 'low', rack: rack.id, device_type: type.id, position: 5, face: 'front' }));
    expect((await t().patch(`/api/dcim/racks/${rack.id}/`, { u_height: 7 }).expect(400)).body).toEqual({ u_height: ['Rack must be at least 8U tall to house currently installed devices.'] });
    expect((await t().patch(`/api/dcim/racks/${rack.id}/`, { u_height: 8 }).expect(200)).body.u_height).toBe(8);
    expect((await t().patch(`/api/dcim/device-types/${type.id}/`, { u_height: 2 }).expect(200)).body.u_height).toBe(2);
    expect((await t().patch(`/api/dcim/device-types/${type.id}/`, { u_height: 3 }).expect(400)).body).toEqual({
      u_height: ['Device low in rack Sized does not have sufficient space to accommodate a height of 3U'],
    });
    expect((await t().patch(`/api/dcim/device-types/${type.id}/`, { u_height: 0 }).expect(400)).body).toEqual({
      u_height: [`Unable to set 0U height: Found <a href="/dcim/devices/?manufacturer=${maker.id}&device_type=${type.id}">1 instances</a> already mounted within racks.`],
    });
    await t().patch(`/api/dcim/devices/${low.id}/`, { position: null, face: '' }).expect(200);
    expect((await t().patch(`/api/dcim/device-types/${type.id}/`, { u_height: 0 }).expect(200)).body.u_height).toBe(0);
  });

  it('shows mounted devices in the rack elevation, and counts devices where they are', async () => {
    const rack = await post('/api/dcim/racks/', { name: 'Elevated', location: site.id, status: 'Active', u_height: 6 });
    const platform = await post('/api/dcim/platforms/', { name: 'Junos', manufacturer: maker.id });
    const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Counted', u_height: 2 });
    const mounted = await post('/api/dcim/devices/', device({ name: 'e1', rack: rack.id, device_type: type.id, position: 2, face: 'front', platform: platform.id }));
    await post('/api/dcim/devices/', device({ name: 'e2', rack: rack.id, device_type: half.id, position: 5, face: 'rear' }));
    const url = `/api/dcim/racks/${rack.id}/elevation/`;
    const front = (await t().get(url).expect(200)).body.results;
    expect(front.map((u: any) => [u.id, u.occupied])).toEqual([[6, false], [5, false], [4, false], [3, true], [2, true], [1, false]]);
    expect(front[3]).toEqual({ id: 3, name: 'U3', face: { value: 'front', label: 'Front' }, occupied: true });
    expect((await t().get(`${url}?face=rear&is_occupied=true`).expect(200)).body.results.map((u: any) => u.id)).toEqual([5, 3, 2]);
    expect((await t().get(`${url}?expand_devices=false`).expect(200)).body.results.map((u: any) => [u.id, u.occupied])).toEqual([[6, false], [5, false], [4, false], [2, true], [1, false]]);
    expect((await t().get(`${url}?exclude=${mounted.id}&is_occupied=true`).expect(200)).body.count).toBe(0);
    expect((await t().get(`/api/dcim/racks/${rack.id}/`).expect(200)).body.device_count).toBe(2);
    expect((await t().get(`/api/dcim/device-types/${type.id}/`).expect(200)).body.device_count).toBe(1);
    expect((await t().get(`/api/dcim/platforms/${platform.id}/`).expect(200)).body.device_count).toBe(1);
    const counted = (await t().get(`/api/dcim/locations/?id=${site.id}&id=${other.id}`).expect(200)).body.results;
    expect(counted.find((l: any) => l.id === other.id).device_count).toBe(0);
    expect(counted.find((l: any) => l.id === site.id).device_count).toBeGreaterThan(2);
    expect((await t().get(`/api/dcim/devices/?rack=${rack.id}&manufacturer=Juniper&platform=Junos`).expect(200)).body.results.map((d: any) => d.name)).toEqual(['e1']);
    expect((await t().get(`/api/dcim/devices/?location=${campus.id}&rack=${rack.id}`).expect(200)).body.count).toBe(2);
  });
});
