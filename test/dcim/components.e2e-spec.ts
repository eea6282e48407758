import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * Device components as Nautobot 2.4 serves them: instantiated from the device type's templates
 * with the device, in one transaction; names in natural order; the interface, port and bay
 * rules with the reference's messages; MAC addresses in the reference's form; the filters
 * automation uses; addresses assigned to real interfaces.
 */
eachDatabase('device components', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const list = async (path: string) => (await t().get(path).expect(200)).body;
  let site: Obj;
  let elsewhere: Obj;
  let maker: Obj;
  let role: Obj;
  let switchType: Obj;
  let chassisType: Obj;
  let bladeType: Obj;
  const device = (name: string, type: Obj, extra: object = {}) => post('/api/dcim/devices/', { name, device_type: type.id, role: role.id, status: 'Active', location: site.id, ...extra });

  beforeAll(async () => {
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.device', 'ipam.vlan'] });
    site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, status: 'Active' });
    elsewhere = await post('/api/dcim/locations/', { name: 'FRA1', location_type: siteType.id, status: 'Active' });
    maker = await post('/api/dcim/manufacturers/', { name: 'Juniper' });
    role = await post('/api/extras/roles/', { name: 'Switch', content_types: ['dcim.device'] });
    switchType = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300-48T' });
    chassisType = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Chassis', subdevice_role: 'parent' });
    bladeType = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Blade', u_height: 0, subdevice_role: 'child' });
    const on = { device_type: switchType.id };
    await post('/api/dcim/interface-templates/', [
      ...[1, 2, 10].map((n) => ({ ...on, name: `ge-0/0/${n}`, type: '1000base-t', mgmt_only: false })),
      { ...on, name: 'em0', type: '1000base-t', mgmt_only: true, label: 'MGMT' },
    ]);
    await post('/api/dcim/console-port-templates/', { ...on, name: 'Console', type: 'rj-45' });
    const psu = await post('/api/dcim/power-port-templates/', { ...on, name: 'PSU0', type: 'iec-60320-c14', maximum_draw: 350 });
    await post('/api/dcim/power-outlet-templates/', { ...on, name: 'Out1', power_port_template: psu.id, feed_leg: 'A' });
    const rear = await post('/api/dcim/rear-port-templates/', { ...on, name: 'Rear', type: 'lc', positions: 2 });
    await post('/api/dcim/front-port-templates/', [
      { ...on, name: 'Front1', type: 'lc', rear_port_template: rear.id, rear_port_position: 1 },
      { ...on, name: 'Front2', type: 'lc', rear_port_template: rear.id, rear_port_position: 2 },
    ]);
    await post('/api/dcim/device-bay-templates/', { device_type: chassisType.id, name: 'Slot 1' });
    await post('/api/dcim/module-bay-templates/', { device_type: switchType.id, name: 'PIC 0', position: '0' });
  });

  it("gives a new device its type's components, wired as the templates are, in one request", async () => {
    const [a, b] = await post('/api/dcim/devices/', [
      { name: 'sw1', device_type: switchType.id, role: role.id, status: 'Active', location: site.id },
      { name: 'sw2', device_type: switchType.id, role: role.id, status: 'Active', location: site.id },
    ]);
    const interfaces = await list(`/api/dcim/interfaces/?device_id=${a.id}`);
    // Natural order: ge-0/0/2 before ge-0/0/10.
    expect(interfaces.results.map((i: Obj) => i.name)).toEqual(['em0', 'ge-0/0/1', 'ge-0/0/2', 'ge-0/0/10']);
    expect(interfaces.results[0]).toMatchObject({ label: 'MGMT', mgmt_only: true, type: { value: '1000base-t', label: '1000BASE-T (1GE)' }, enabled: true, mac_address: null, mode: null, ip_addresses: [], ip_address_count: 0 });
    expect(interfaces.results[0].status.id).toBe((await list('/api/extras/statuses/?name=Active')).results[0].id);
    const power = (await list(`/api/dcim/power-ports/?device=sw2`)).results;
    expect(power).toHaveLength(1);
    expect(power[0]).toMatchObject({ name: 'PSU0', maximum_draw: 350, device: { id: b.id } });
    const outlet = (await list(`/api/dcim/power-outlets/?device=sw2`)).results[0];
    expect(outlet).toMatchObject({ name: 'Out1', power_port: { id: power[0].id }, feed_leg: { value: 'A', label: 'A' } });
    const rears = (await list(`/api/dcim/rear-ports/?device=sw2`)).results;
    const fronts = (await list(`/api/dcim/front-ports/?device=sw2`)).results;
    expect(fronts.map((f: Obj) => [f.name, f.rear_port.id, f.rear_port_position])).toEqual([
      ['Front1', rears[0].id, 1],
      ['Front2', rears[0].id, 2],
    ]);
    expect((await list(`/api/dcim/module-bays/?parent_device=${a.id}`)).results.map((m: Obj) => [m.display, m.position])).toEqual([['sw1 (PIC 0)', '0']]);
    expect((await list(`/api/dcim/console-ports/?device_id=${a.id}`)).count).toBe(1);
    // The device's reverse filters see them.
    expect((await list('/api/dcim/devices/?has_interfaces=true&name=sw1')).count).toBe(1);
    expect((await list(`/api/dcim/devices/?interfaces=em0&location=${site.id}`)).results.map((d: Obj) => d.name)).toEqual(['sw1', 'sw2']);
    // Deleting a device deletes its components.
    const before = (await list('/api/dcim/interfaces/')).count;
    await t().del(`/api/dcim/devices/${b.id}/`).expect(204);
    expect((await list('/api/dcim/interfaces/')).count).toBe(before - 4);
    expect((await list(`/api/dcim/front-ports/?q=Front`)).count).toBe(2);
  });

  it('refuses a device whose components could not be made, and keeps nothing of it', async () => {
    // A component that fails leaves neither the device nor its other components.
    const before = (await list('/api/dcim/interfaces/')).count;
    const bad = await refuse('/api/dcim/devices/', [
      { name: 'sw3', device_type: switchType.id, role: role.id, status: 'Active', location: site.id },
      { name: 'sw3', device_type: switchType.id, role: role.id, status: 'Active', location: site.id },
    ]);
    expect(bad[1]).toEqual({ name: ['A device with this name already exists.'] });
    expect((await list('/api/dcim/interfaces/')).count).toBe(before);
    expect((await list('/api/dcim/devices/?name=sw3')).count).toBe(0);
  });

  it('applies the interface rules with the reference messages', async () => {
    const d = await device('r1', chassisType);
    const other = await device('r2', chassisType);
    const base = { device: d.id, status: 'Active' };
    const lag = await post('/api/dcim/interfaces/', { ...base, name: 'ae0', type: 'lag' });
    const eth = await post('/api/dcim/interfaces/', { ...base, name: 'xe-0/0/0', type: '10gbase-x-sfpp' });
    const foreign = await post('/api/dcim/interfaces/', { device: other.id, status: 'Active', name: 'ae1', type: 'lag' });
    expect(await refuse('/api/dcim/interfaces/', { ...base, name: 'v1', type: 'virtual', lag: lag.id })).toEqual({ lag: ['Virtual interfaces cannot have a parent LAG interface.'] });
    expect(await refuse('/api/dcim/interfaces/', { ...base, name: 'x1', type: '1000base-t', lag: foreign.id })).toEqual({
      lag: ['The selected LAG interface (ae1) belongs to a different device (r2).'],
    });
    expect(await refuse('/api/dcim/interfaces/', { ...base, name: 'x2', type: '1000base-t', parent_interface: eth.id })).toEqual({
      parent_interface: ['Only virtual interfaces may be assigned to a parent interface.'],
    });
    expect(await refuse('/api/dcim/interfaces/', { ...base, name: 'x3', type: 'virtual', bridge: foreign.id })).toEqual({
      bridge: ['The selected bridge interface (ae1) belongs to a different device (r2).'],
    });
    expect((await t().patch(`/api/dcim/interfaces/${lag.id}/`, { bridge: lag.id }).expect(400)).body).toEqual({ bridge: ['An interface cannot be bridged to itself.'] });
    expect(await refuse('/api/dcim/interfaces/', { ...base, name: 'x4', type: 'lag', speed: 1000 })).toEqual({ speed: ['Speed is not applicable to this interface type.'] });
    expect(await refuse('/api/dcim/interfaces/', { ...base, name: 'x5', type: '10gbase-x-sfpp', duplex: 'full' })).toEqual({ duplex: ['Duplex is only applicable to copper twisted-pair interfaces.'] });
    expect(await refuse('/api/dcim/interfaces/', { ...base, name: 'x6', type: '1000base-t', mac_address: '00:11:22:33:44' })).toEqual({ mac_address: ['Invalid MAC address format: 00:11:22:33:44'] });
    expect(await refuse('/api/dcim/interfaces/', { ...base, name: 'xe-0/0/0', type: '1000base-t' })).toEqual({ non_field_errors: ['The fields device, name must make a unique set.'] });
    const sub = await post('/api/dcim/interfaces/', { ...base, name: 'xe-0/0/0.100', type: 'virtual', parent_interface: eth.id, mac_address: '0011.2233.44aa', duplex: '' });
    expect(sub).toMatchObject({ parent_interface: { id: eth.id }, mac_address: '00:11:22:33:44:AA', duplex: null });
    const member = await post('/api/dcim/interfaces/', { ...base, name: 'xe-0/0/1', type: '10gbase-x-sfpp', lag: lag.id, mac_address: '00-11-22-33-44-bb' });
    expect(member.mac_address).toBe('00:11:22:33:44:BB');
    expect((await list(`/api/dcim/interfaces/?mac_address=00:11:22:33:44:BB`)).results.map((i: Obj) => i.name)).toEqual(['xe-0/0/1']);
    expect((await list(`/api/dcim/interfaces/?mac_address=0011.2233.44bb`)).results.map((i: Obj) => i.name)).toEqual(['xe-0/0/1']);
    expect((await list(`/api/dcim/devices/?mac_address=00-11-22-33-44-bb`)).results.map((x: Obj) => x.name)).toEqual(['r1']);
    expect((await t().get('/api/dcim/devices/?mac_address=nope').expect(400)).body).toEqual({ mac_address: ['Enter a valid MAC address.'] });
    expect((await list(`/api/dcim/interfaces/?device=r1&kind=virtual`)).results.map((i: Obj) => i.name)).toEqual(['ae0', 'xe-0/0/0.100']);
    expect((await list(`/api/dcim/interfaces/?device=r1&kind=physical`)).results.map((i: Obj) => i.name)).toEqual(['xe-0/0/0', 'xe-0/0/1']);
    expect((await list(`/api/dcim/interfaces/?lag=${lag.id}`)).count).toBe(1);
    expect((await list(`/api/dcim/interfaces/?device=r1&has_member_interfaces=true`)).results.map((i: Obj) => i.name)).toEqual(['ae0']);
    // A VRF not assigned to the device is refused.
    const vrf = await post('/api/ipam/vrfs/', { name: 'blue', rd: '65000:7' });
    expect(await refuse('/api/dcim/interfaces/', { ...base, name: 'x7', type: 'virtual', vrf: vrf.id })).toEqual({ vrf: ['VRF must be assigned to same Device.'] });
    // Assigned to the device, it may be used; the assignment takes the VRF's rd and name when given none.
    const assignment = await post('/api/ipam/vrf-device-assignments/', { vrf: vrf.id, device: d.id });
    expect(assignment).toMatchObject({ display: 'blue [r1] (rd: 65000:7, name: blue)', rd: '65000:7', name: 'blue', device: { id: d.id } });
    expect((await post('/api/dcim/interfaces/', { ...base, name: 'x7', type: 'virtual', vrf: vrf.id })).vrf.id).toBe(vrf.id);
    expect(await refuse('/api/ipam/vrf-device-assignments/', { vrf: vrf.id })).toEqual({ __all__: ['A VRFDeviceAssignment entry must be associated with a device, a virtual machine, or a virtual device context.'] });
  });

  it('lets interfaces of virtual chassis members share LAGs, parents and bridges, and keeps such a chassis', async () => {
    const m1 = await device('stack-m1', chassisType);
    const m2 = await device('stack-m2', chassisType);
    const outsider = await device('stack-x', chassisType);
    const vc = await post('/api/dcim/virtual-chassis/', { name: 'stack', master: m1.id });
    await t().patch(`/api/dcim/devices/${m2.id}/`, { virtual_chassis: vc.id, vc_position: 2 }).expect(200);
    const lag = await post('/api/dcim/interfaces/', { device: m1.id, name: 'ae0', type: 'lag', status: 'Active' });
    const member = await post('/api/dcim/interfaces/', { device: m2.id, name: 'xe-1/0/0', type: '10gbase-x-sfpp', status: 'Active', lag: lag.id });
    expect(member.lag.id).toBe(lag.id);
    expect(await refuse('/api/dcim/interfaces/', { device: outsider.id, name: 'xe-9/0/0', type: '10gbase-x-sfpp', status: 'Active', lag: lag.id })).toEqual({
      lag: ['The selected LAG interface (ae0) belongs to a different device (stack-m1).'],
    });
    const lone = await device('stack-y', chassisType);
    await post('/api/dcim/virtual-chassis/', { name: 'other stack', master: lone.id });
    expect(await refuse('/api/dcim/interfaces/', { device: lone.id, name: 'xe-9/0/1', type: '10gbase-x-sfpp', status: 'Active', lag: lag.id })).toEqual({
      lag: ['The selected LAG interface (ae0) belongs to stack-m1, which is not part of virtual chassis other stack.'],
    });
    // The master's interfaces, as a filter by device sees them, are the whole chassis' but its members' management ones.
    await post('/api/dcim/interfaces/', { device: m2.id, name: 'em1', type: '1000base-t', status: 'Active', mgmt_only: true });
    expect((await list('/api/dcim/interfaces/?device=stack-m1')).results.map((i: Obj) => i.name).sort()).toEqual(['ae0', 'xe-1/0/0']);
    expect((await list(`/api/dcim/interfaces/?device_id=${m2.id}`)).results.map((i: Obj) => i.name).sort()).toEqual(['em1', 'xe-1/0/0']);
    // The chassis cannot go while its members' interfaces form a LAG across them.
    const refused = await t().del(`/api/dcim/virtual-chassis/${vc.id}/`).expect(409);
    expect(refused.body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: xe-1/0/0 (${member.id})` });
    await t().patch(`/api/dcim/interfaces/${member.id}/`, { lag: null }).expect(200);
    await t().del(`/api/dcim/virtual-chassis/${vc.id}/`).expect(204);
  });

  it('updates a batch of interfaces with as many statements as one (no read per interface)', async () => {
    const d = await device('batch-sw', switchType);
    const ifaces = (await list(`/api/dcim/interfaces/?device_id=${d.id}`)).results;
    const patch = (n: number) => t().countStatements(() => t().patch('/api/dcim/interfaces/', ifaces.slice(0, n).map((i: Obj) => ({ id: i.id, mode: 'access', description: `n${n}` }))).expect(200));
    const one = await patch(1);
    expect(await patch(ifaces.length)).toBe(one);
  });

  it('keeps 802.1Q modes and VLANs consistent, within the VLANs the device may use', async () => {
    const d = await device('vlan-sw', switchType);
    const iface = (await list(`/api/dcim/interfaces/?device_id=${d.id}&name=ge-0/0/1`)).results[0];
    const url = `/api/dcim/interfaces/${iface.id}/`;
    const local = await post('/api/ipam/vlans/', { vid: 100, name: 'users', status: 'Active', locations: [site.id] });
    const global = await post('/api/ipam/vlans/', { vid: 200, name: 'voice', status: 'Active' });
    const far = await post('/api/ipam/vlans/', { vid: 300, name: 'far', status: 'Active', locations: [elsewhere.id] });
    expect((await t().patch(url, { untagged_vlan: local.id }).expect(400)).body).toEqual({ untagged_vlan: ['Mode must be set when specifying untagged_vlan'] });
    expect((await t().patch(url, { mode: 'access', tagged_vlans: [global.id] }).expect(400)).body).toEqual({ tagged_vlans: ['Mode must be set to tagged when specifying tagged_vlans'] });
    expect((await t().patch(url, { mode: 'access', untagged_vlan: far.id }).expect(400)).body).toEqual({
      untagged_vlan: ["The untagged VLAN (far (300)) must have a common location as the interface's parent device, or is in one of the parents of the interface's parent device's location, or it must be global."],
    });
    expect((await t().patch(url, { mode: 'tagged', tagged_vlans: [global.id, far.id] }).expect(400)).body).toEqual({
      tagged_vlans: ["VLAN far (300) must have the same location as the interface's parent device, or is in one of the parents of the interface's parent device's location, or it must be global."],
    });
    const tagged = (await t().patch(url, { mode: 'tagged', untagged_vlan: local.id, tagged_vlans: [global.id] }).expect(200)).body;
    expect(tagged).toMatchObject({ mode: { value: 'tagged', label: 'Tagged' }, untagged_vlan: { id: local.id }, tagged_vlans: [{ id: global.id }] });
    expect((await list(`/api/dcim/interfaces/?vlan=200`)).results.map((i: Obj) => i.id)).toEqual([iface.id]);
    expect((await list(`/api/dcim/interfaces/?vlan_id=${local.id}`)).results.map((i: Obj) => i.id)).toEqual([iface.id]);
    expect((await t().patch(url, { mode: 'access' }).expect(400)).body).toEqual({ tagged_vlans: ['Clear tagged_vlans to set mode to access'] });
    const access = (await t().patch(url, { mode: 'access', tagged_vlans: [] }).expect(200)).body;
    expect(access).toMatchObject({ mode: { value: 'access' }, tagged_vlans: [] });
    expect((await list(`/api/dcim/interfaces/?vlan=200`)).count).toBe(0);
  });

  it('applies the port and bay rules with the reference messages', async () => {
    const d = await device('panel', chassisType);
    const other = await device('panel2', chassisType);
    const rear = await post('/api/dcim/rear-ports/', { device: d.id, name: 'R1', type: 'lc', positions: 2 });
    expect(await refuse('/api/dcim/front-ports/', { device: other.id, name: 'F1', type: 'lc', rear_port: rear.id })).toEqual({ rear_port: ['Rear port (R1) must belong to the same device'] });
    expect(await refuse('/api/dcim/front-ports/', { device: d.id, name: 'F1', type: 'lc', rear_port: rear.id, rear_port_position: 3 })).toEqual({
      rear_port_position: ['Invalid rear port position (3): Rear port R1 has only 2 positions'],
    });
    await post('/api/dcim/front-ports/', [
      { device: d.id, name: 'F1', type: 'lc', rear_port: rear.id, rear_port_position: 1 },
      { device: d.id, name: 'F2', type: 'lc', rear_port: rear.id, rear_port_position: 2 },
    ]);
    expect((await t().patch(`/api/dcim/rear-ports/${rear.id}/`, { positions: 1 }).expect(400)).body).toEqual({
      positions: ['The number of positions cannot be less than the number of mapped front ports (2)'],
    });
    const psu = await post('/api/dcim/power-ports/', { device: other.id, name: 'PSU' });
    expect(await refuse('/api/dcim/power-outlets/', { device: d.id, name: 'O1', power_port: psu.id })).toEqual({ __all__: ['Parent power port (PSU) must belong to the same device'] });
    expect(await refuse('/api/dcim/power-ports/', { device: d.id, name: 'P1', maximum_draw: 100, allocated_draw: 200 })).toEqual({ allocated_draw: ['Allocated draw cannot exceed the maximum draw (100W).'] });
    // Bays: only in parent devices, holding a child device once.
    const sw = await device('not-a-parent', switchType);
    expect(await refuse('/api/dcim/device-bays/', { device: sw.id, name: 'B1' })).toEqual({ __all__: ['This type of device (EX4300-48T) does not support device bays.'] });
    const bay = (await list(`/api/dcim/device-bays/?device_id=${d.id}`)).results[0];
    expect(bay.name).toBe('Slot 1');
    expect((await t().patch(`/api/dcim/device-bays/${bay.id}/`, { installed_device: d.id }).expect(400)).body).toEqual({ __all__: ['Cannot install a device into itself.'] });
    expect((await t().patch(`/api/dcim/device-bays/${bay.id}/`, { installed_device: sw.id }).expect(400)).body).toEqual({
      installed_device: ['Cannot install device "not-a-parent"; device-type "EX4300-48T" subdevice_role is not "child".'],
    });
    const blade = await device('blade1', bladeType);
    await t().patch(`/api/dcim/device-bays/${bay.id}/`, { installed_device: blade.id }).expect(200);
    const otherBay = (await list(`/api/dcim/device-bays/?device_id=${other.id}`)).results[0];
    expect((await t().patch(`/api/dcim/device-bays/${otherBay.id}/`, { installed_device: blade.id }).expect(400)).body).toEqual({
      installed_device: ['Cannot install the specified device; device is already installed in Slot 1'],
    });
    expect((await list(`/api/dcim/devices/?has_device_bays=true&location=${site.id}`)).results.map((x: Obj) => x.name)).toEqual(expect.arrayContaining(['panel', 'panel2']));
    // A parent that moves takes its children along.
    await t().patch(`/api/dcim/devices/${d.id}/`, { location: elsewhere.id }).expect(200);
    expect((await t().get(`/api/dcim/devices/${blade.id}/`).expect(200)).body.location.id).toBe(elsewhere.id);
    expect((await t().get(`/api/dcim/devices/${other.id}/`).expect(200)).body.location.id).toBe(site.id);
  });

  it('assigns addresses to real interfaces and shows them on the interface', async () => {
    const d = await device('edge1', switchType);
    const iface = (await list(`/api/dcim/interfaces/?device_id=${d.id}&name=em0`)).results[0];
    await post('/api/ipam/prefixes/', { prefix: '192.0.2.0/24', status: 'Active' });
    const ip = await post('/api/ipam/ip-addresses/', { address: '192.0.2.1/24', status: 'Active', namespace: 'Global' });
    const assignment = await post('/api/ipam/ip-address-to-interface/', { ip_address: ip.id, interface: iface.id });
    expect(assignment).toMatchObject({ display: '192.0.2.1/24 edge1 em0', interface: { id: iface.id, object_type: 'dcim.interface' }, vm_interface: null });
    const read = (await t().get(`/api/dcim/interfaces/${iface.id}/`).expect(200)).body;
    expect(read).toMatchObject({ ip_addresses: [{ id: ip.id, object_type: 'ipam.ipaddress' }], ip_address_count: 1 });
    expect((await t().get(`/api/dcim/interfaces/${iface.id}/?depth=1`).expect(200)).body.ip_addresses[0].address).toBe('192.0.2.1/24');
    expect(await refuse('/api/ipam/ip-address-to-interface/', { ip_address: ip.id, interface: d.id })).toEqual({
      interface: [`Related object not found using the provided attributes: {'pk': UUID('${d.id}')}`],
    });
    // Addresses by the device or interface they are assigned to.
    const ids = async (q: string) => (await list(`/api/ipam/ip-addresses/?${q}`)).results.map((x: Obj) => x.id);
    for (const q of ['device=edge1', `device_id=${d.id}`, `interface=${iface.id}`, `interface_id=${iface.id}`, `interfaces=${iface.id}`, 'has_interface_assignments=true&address=192.0.2.1/24']) expect({ q, ids: await ids(q) }).toEqual({ q, ids: [ip.id] });
    expect(await ids('has_interface_assignments=false&address=192.0.2.1/24')).toEqual([]);
    // An interface deleted takes its assignments with it.
    await t().del(`/api/dcim/interfaces/${iface.id}/`).expect(204);
    expect((await list(`/api/ipam/ip-address-to-interface/?ip_address=${ip.id}`)).count).toBe(0);
  });

  it("takes primary IPs only from the device's own interfaces, and lets them go with their last assignment", async () => {
    const d = await device('edge2', switchType);
    const other = await device('edge3', switchType);
    const [em0, ge1] = ['em0', 'ge-0/0/1'].map(async (n) => (await list(`/api/dcim/interfaces/?device_id=${d.id}&name=${n}`)).results[0]);
    const mine = await em0;
    const second = await ge1;
    const elsewhere = (await list(`/api/dcim/interfaces/?device_id=${other.id}&name=em0`)).results[0];
    await post('/api/ipam/prefixes/', [{ prefix: '198.51.100.0/24', status: 'Active' }, { prefix: '2001:db8::/64', status: 'Active' }]);
    const [v4, v6, far] = await post('/api/ipam/ip-addresses/', ['198.51.100.1/24', '2001:db8::1/64', '198.51.100.2/24'].map((address) => ({ address, status: 'Active', namespace: 'Global' })));
    const [a4, , ] = await post('/api/ipam/ip-address-to-interface/', [
      { ip_address: v4.id, interface: mine.id },
      { ip_address: v6.id, interface: mine.id },
      { ip_address: far.id, interface: elsewhere.id },
    ]);
    const url = `/api/dcim/devices/${d.id}/`;
    expect((await t().patch(url, { primary_ip4: v6.id }).expect(400)).body).toEqual({ primary_ip4: ['2001:db8::1/64 is not an IPv4 address.'] });
    expect((await t().patch(url, { primary_ip4: far.id }).expect(400)).body).toEqual({ primary_ip4: ['The specified IP address (198.51.100.2/24) is not assigned to this device.'] });
    const set = (await t().patch(url, { primary_ip4: v4.id, primary_ip6: v6.id }).expect(200)).body;
    expect(set).toMatchObject({ primary_ip4: { id: v4.id, object_type: 'ipam.ipaddress' }, primary_ip6: { id: v6.id } });
    expect((await list(`/api/dcim/devices/?has_primary_ip=true&location=${site.id}`)).results.map((x: Obj) => x.name)).toEqual(['edge2']);
    // Assigned to a second interface of the device too: removing one assignment keeps it primary.
    const a4b = await post('/api/ipam/ip-address-to-interface/', { ip_address: v4.id, interface: second.id });
    await t().del(`/api/ipam/ip-address-to-interface/${a4.id}/`).expect(204);
    expect((await list(url)).primary_ip4).toMatchObject({ id: v4.id });
    await t().del(`/api/ipam/ip-address-to-interface/${a4b.id}/`).expect(204);
    expect((await list(url)).primary_ip4).toBeNull();
    // The interface holding the IPv6 address goes: so does the primary IPv6.
    await t().del(`/api/dcim/interfaces/${mine.id}/`).expect(204);
    expect((await list(url)).primary_ip6).toBeNull();
  });
});
