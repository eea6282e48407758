import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Software versions and image files, controllers and their managed device groups, device and
 * interface redundancy groups, virtual device contexts, as Nautobot 2.4 serves them: the
 * reference's rules and messages, the device fields that point at them and their filters, and
 * what the Ansible modules rely on (a name or natural key finds the object again).
 */
eachDatabase('software, controllers, redundancy groups and VDCs', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const patch = async (path: string, body: object, status = 200) => (await t().patch(path, body).expect(status)).body;
  const get = async (path: string) => (await t().get(path).expect(200)).body;
  const ids = async (path: string) => (await get(path)).results.map((o: any) => o.id).sort();
  const DEVICES = '/api/dcim/devices/';
  const VERSIONS = '/api/dcim/software-versions/';
  const FILES = '/api/dcim/software-image-files/';
  const CONTROLLERS = '/api/dcim/controllers/';
  const GROUPS = '/api/dcim/controller-managed-device-groups/';
  const VDCS = '/api/dcim/virtual-device-contexts/';
  let site: any;
  let nxos: any;
  let n9k: any;
  let n3k: any;
  let device: (body: object) => object;

  beforeAll(async () => {
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.device', 'dcim.controller'] });
    const hallType = await post('/api/dcim/location-types/', { name: 'Hall', content_types: ['dcim.device'] });
    site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, status: 'Active' });
    await post('/api/dcim/locations/', { name: 'Hall 1', location_type: hallType.id, status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'Cisco' });
    nxos = await post('/api/dcim/platforms/', { name: 'NX-OS', manufacturer: maker.id });
    n9k = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'N9K' });
    n3k = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'N3K' });
    const role = await post('/api/extras/roles/', { name: 'Leaf', content_types: ['dcim.device', 'dcim.controller', 'dcim.virtualdevicecontext'] });
    device = (body: object) => ({ device_type: n9k.id, role: role.id, status: 'Active', location: site.id, ...body });
  });

  it('serves software versions unique per platform, displayed by alias, with their own statuses', async () => {
    const v = await post(VERSIONS, { platform: { name: 'NX-OS' }, version: '10.1', status: 'Active', release_date: '2024-01-15', documentation_url: 'https://docs.example.com/10.1' });
    expect(v).toMatchObject({ display: 'NX-OS - 10.1', version: '10.1', alias: '', long_term_support: false, pre_release: false, end_of_support_date: null, release_date: '2024-01-15' });
    expect((await patch(`${VERSIONS}${v.id}/`, { alias: 'NX-OS ten' })).display).toBe('NX-OS ten');
    expect(await refuse(VERSIONS, { platform: nxos.id, version: '10.1', status: 'Active' })).toEqual({ non_field_errors: ['The fields platform, version must make a unique set.'] });
    expect(await refuse(VERSIONS, { platform: nxos.id, version: '10.2', status: 'Active', documentation_url: 'docs' })).toEqual({ documentation_url: ['Enter a valid URL.'] });
    const statuses = (await get('/api/extras/statuses/?content_types=dcim.softwareversion')).results.map((s: any) => s.name).sort();
    expect(statuses).toEqual(['Active', 'End-of-Life', 'Extended Support']);
  });

  it('serves image files unique per version, maps them to device types, and refuses what a device may not run', async () => {
    const v = await post(VERSIONS, { platform: nxos.id, version: '9.3', status: 'Active' });
    const image = await post(FILES, { software_version: v.id, image_file_name: 'nxos-9.3.bin', status: 'Active', hashing_algorithm: 'sha256', image_file_size: 5_000_000_000 });
    expect(image).toMatchObject({ display: 'NX-OS - 9.3 - nxos-9.3.bin', hashing_algorithm: { value: 'sha256', label: 'SHA256' }, image_file_size: 5_000_000_000, default_image: false });
    const fallback = await post(FILES, { software_version: v.id, image_file_name: 'nxos-9.3-default.bin', status: 'Active', default_image: true });
    expect(await refuse(FILES, { software_version: v.id, image_file_name: 'nxos-9.3.bin', status: 'Active' })).toEqual({ non_field_errors: ['The fields image_file_name, software_version must make a unique set.'] });
    expect(await refuse(FILES, { software_version: v.id, image_file_name: 'x.bin', status: 'Active', hashing_algorithm: 'crc32' })).toEqual({ hashing_algorithm: ['crc32 is not a valid choice.'] });
    // The download URL is the reference's LaxURLField: tftp, sftp, bare host names; not any scheme.
    for (const url of ['tftp://10.0.0.5/nxos.bin', 'http://fileserver/nxos.bin', 'sftp://user@files.example.com:2222/nxos.bin']) {
      const made = await post(FILES, { software_version: v.id, image_file_name: `lax-${url.length}-${url.slice(0, 4)}.bin`, status: 'Active', download_url: url });
      expect(made.download_url).toBe(url);
    }
    expect(await refuse(FILES, { software_version: v.id, image_file_name: 'gopher.bin', status: 'Active', download_url: 'gopher://files/nxos.bin' })).toEqual({ download_url: ['Enter a valid URL.'] });

    // A device type's image files: set through the mapping, read-only on the type.
    await post('/api/dcim/device-types-to-software-image-files/', { device_type: { model: 'N9K' }, software_image_file: { image_file_name: 'nxos-9.3.bin', software_version: v.id } });
    expect(await refuse('/api/dcim/device-types-to-software-image-files/', { device_type: n9k.id, software_image_file: image.id })).toEqual({
      non_field_errors: ['The fields device_type, software_image_file must make a unique set.'],
    });
    expect((await get(`/api/dcim/device-types/${n9k.id}/`)).software_image_files.map((f: any) => f.id)).toEqual([image.id]);
    expect(await ids('/api/dcim/device-types/?software_image_files=nxos-9.3.bin')).toEqual([n9k.id]);
    expect(await ids('/api/dcim/device-types/?has_software_image_files=false')).toEqual([n3k.id]);
    expect(await ids(`${FILES}?device_types=N9K`)).toEqual([image.id]);
    expect(await ids(`${VERSIONS}?device_types=${n9k.id}`)).toEqual([v.id]);
    // A mapped image file is protected; the mapping goes with its device type.
    await t().del(`${FILES}${image.id}/`).expect(409);

    // A device runs a version and may override its image files. As in the reference, a set given
    // is taken as it is (even a file that is neither a default image nor one of the type's), but
    // a device type may not change under image files that are not valid for it.
    const sw1 = await post(DEVICES, device({ name: 'sw1', software_version: v.id, software_image_files: [image.id, fallback.id] }));
    expect(sw1.software_version).toMatchObject({ id: v.id, object_type: 'dcim.softwareversion' });
    expect(sw1.software_image_files.map((f: any) => f.id).sort()).toEqual([image.id, fallback.id].sort());
    const sw2 = await post(DEVICES, device({ name: 'sw2', device_type: n3k.id, software_image_files: [image.id] }));
    expect(sw2.software_image_files.map((f: any) => f.id)).toEqual([image.id]);
    await t().del(`${DEVICES}${sw2.id}/`).expect(204);
    expect(await patch(`${DEVICES}${sw1.id}/`, { device_type: n3k.id }, 400)).toEqual({
      software_image_files: ["Software image file NX-OS - 9.3 - nxos-9.3.bin for version 'NX-OS - 9.3' is not valid for device type N3K."],
    });
    const sw3 = await post(DEVICES, device({ name: 'sw3', device_type: n3k.id, software_image_files: [fallback.id] }));
    expect(await ids(`${DEVICES}?software_version=9.3&has_software_version=true`)).toEqual([sw1.id]);
    expect(await ids(`${DEVICES}?has_software_version=false&software_image_files=nxos-9.3-default.bin`)).toEqual([sw3.id]);
    expect(await ids(`${VERSIONS}?devices=sw1&has_devices=true`)).toEqual([v.id]);
    expect(await ids(`${FILES}?devices=sw3`)).toEqual([fallback.id]);
    // A version in use by a device is protected; image files go with their version.
    await t().del(`${VERSIONS}${v.id}/`).expect(409);
  });

  it('records the software of inventory items and virtual machines, and keeps a version they run', async () => {
    const version = await post(VERSIONS, { platform: nxos.id, version: '10.4(2)', status: 'Active' });
    const file = await post(FILES, { software_version: version.id, image_file_name: 'nxos64-cs.10.4.2.F.bin', status: 'Active' });
    const host = await post(DEVICES, device({ name: 'inv-host' }));
    const item = await post('/api/dcim/inventory-items/', { device: host.id, name: 'Supervisor', software_version: version.id, software_image_files: [file.id] });
    expect(item.software_version.id).toBe(version.id);
    expect(item.software_image_files.map((f: { id: string }) => f.id)).toEqual([file.id]);
    const clusterType = await post('/api/virtualization/cluster-types/', { name: 'NX-OSv' });
    const cluster = await post('/api/virtualization/clusters/', { name: 'labs', cluster_type: clusterType.id });
    const vm = await post('/api/virtualization/virtual-machines/', { name: 'nxosv1', cluster: cluster.id, status: 'Active', software_version: version.id });
    expect((await get(`/api/virtualization/virtual-machines/?software_version=${version.id}`)).results.map((v: { id: string }) => v.id)).toEqual([vm.id]);
    expect((await get(`/api/dcim/inventory-items/?software_version=${version.id}`)).results.map((i: { id: string }) => i.id)).toEqual([item.id]);
    await t().del(`${VERSIONS}${version.id}/`).expect(409);
    await patch(`/api/dcim/inventory-items/${item.id}/`, { software_version: null, software_image_files: [] });
    await patch(`/api/virtualization/virtual-machines/${vm.id}/`, { software_version: null });
    await t().del(`${FILES}${file.id}/`).expect(204);
    await t().del(`${VERSIONS}${version.id}/`).expect(204);
  });

  it('groups devices for redundancy: a priority needs a group and is at least 1; the group is cleared when deleted', async () => {
    const pair = await post('/api/dcim/device-redundancy-groups/', { name: 'fw-pair', status: 'Active', failover_strategy: 'active-passive' });
    expect(pair).toMatchObject({ failover_strategy: { value: 'active-passive', label: 'Active/Passive' }, comments: '', description: '' });
    expect((await post('/api/dcim/device-redundancy-groups/', { name: 'other', status: 'Staging' })).failover_strategy).toEqual({ value: '', label: '(unspecified)' });
    expect(await refuse(DEVICES, device({ name: 'fw1', device_redundancy_group_priority: 1 }))).toEqual({
      device_redundancy_group_priority: ['Must assign a redundancy group when defining a redundancy group priority.'],
    });
    expect(await refuse(DEVICES, device({ name: 'fw1', device_redundancy_group: pair.id, device_redundancy_group_priority: 0 }))).toEqual({
      device_redundancy_group_priority: ['Ensure this value is greater than or equal to 1.'],
    });
    const fw1 = await post(DEVICES, device({ name: 'fw1', device_redundancy_group: { name: 'fw-pair' }, device_redundancy_group_priority: 1 }));
    expect(await ids(`${DEVICES}?device_redundancy_group=fw-pair&device_redundancy_group_priority=1`)).toEqual([fw1.id]);
    expect(await patch(`${DEVICES}${fw1.id}/`, { device_redundancy_group: null }, 400)).toEqual({
      device_redundancy_group_priority: ['Must assign a redundancy group when defining a redundancy group priority.'],
    });
    await t().del(`/api/dcim/device-redundancy-groups/${pair.id}/`).expect(204);
    expect(await get(`${DEVICES}${fw1.id}/`)).toMatchObject({ device_redundancy_group: null, device_redundancy_group_priority: 1 });
  });

  it('runs a controller on a device or a redundancy group, not both, in a location that allows controllers', async () => {
    const wlcDevice = await post(DEVICES, device({ name: 'wlc-host' }));
    const pair = await post('/api/dcim/device-redundancy-groups/', { name: 'wlc-pair', status: 'Active' });
    expect(await refuse(CONTROLLERS, { name: 'wlc1', status: 'Active', location: site.id, controller_device: wlcDevice.id, controller_device_redundancy_group: pair.id })).toEqual({
      controller_device: ['Cannot assign both a device and a device redundancy group to a controller.'],
    });
    expect(await refuse(CONTROLLERS, { name: 'wlc1', status: 'Active', location: { name: 'Hall 1' } })).toEqual({ location: ['Controllers may not associate to locations of type "Hall".'] });
    expect(await refuse(CONTROLLERS, { name: 'wlc1', status: 'Active', location: site.id, capabilities: ['wired'] })).toEqual({ capabilities: ['wired is not a valid choice.'] });
    const wlc1 = await post(CONTROLLERS, { name: 'wlc1', status: 'Active', location: site.id, controller_device: wlcDevice.id, capabilities: ['wireless'], platform: nxos.id });
    expect(wlc1).toMatchObject({ capabilities: ['wireless'], controller_device: { id: wlcDevice.id }, controller_device_redundancy_group: null, platform: { id: nxos.id } });
    const wlc2 = await post(CONTROLLERS, { name: 'wlc2', status: 'Active', location: site.id, controller_device_redundancy_group: { name: 'wlc-pair' } });
    expect(await patch(`${CONTROLLERS}${wlc2.id}/`, { controller_device: wlcDevice.id }, 400)).toEqual({
      controller_device: ['Cannot assign both a device and a device redundancy group to a controller.'],
    });
    expect(await ids(`${CONTROLLERS}?controller_device=wlc-host`)).toEqual([wlc1.id]);
    expect(await ids(`${CONTROLLERS}?capabilities=wireless`)).toEqual([wlc1.id]);
    expect((await t().get(`${CONTROLLERS}?capabilities=wired`).expect(400)).body).toEqual({ capabilities: ['Select a valid choice. wired is not one of the available choices.'] });
    expect(await ids(`${CONTROLLERS}?controller_device_redundancy_group=wlc-pair&location=AMS1`)).toEqual([wlc2.id]);
    // The device and the group a controller runs on are protected.
    await t().del(`${DEVICES}${wlcDevice.id}/`).expect(409);
    await t().del(`/api/dcim/device-redundancy-groups/${pair.id}/`).expect(409);
  });

  it('nests managed device groups under a parent of the same controller, holding the devices the controller manages', async () => {
    const loc = { status: 'Active', location: site.id };
    const a = await post(CONTROLLERS, { name: 'ctl-a', ...loc });
    const b = await post(CONTROLLERS, { name: 'ctl-b', ...loc });
    const campus = await post(GROUPS, { name: 'campus', controller: a.id });
    expect(campus).toMatchObject({ weight: 1000, capabilities: null, parent: null, tenant: null });
    expect(await refuse(GROUPS, { name: 'floor', controller: b.id, parent: campus.id })).toEqual({ controller: ['Controller device group must have the same controller as the parent group.'] });
    const floor = await post(GROUPS, { name: 'floor', controller: { name: 'ctl-a' }, parent: { name: 'campus' }, weight: 10 });
    expect(await patch(`${GROUPS}${floor.id}/`, { controller: b.id }, 400)).toEqual({ controller: ['Controller device group must have the same controller as the parent group.'] });
    expect(await ids(`${GROUPS}?subtree=campus`)).toEqual([campus.id, floor.id].sort());
    await patch(`${GROUPS}${floor.id}/`, { capabilities: ['wireless'] });
    expect(await ids(`${GROUPS}?capabilities=wireless`)).toEqual([floor.id]);
    expect(await ids(`${GROUPS}?parent=campus&controller=ctl-a`)).toEqual([floor.id]);
    const ap = await post(DEVICES, device({ name: 'ap1', controller_managed_device_group: floor.id }));
    expect(await ids(`${DEVICES}?controller=ctl-a`)).toEqual([ap.id]);
    expect(await ids(`${DEVICES}?controller_managed_device_group=floor`)).toEqual([ap.id]);
    // Groups go with their controller; their devices stay, outside any group.
    await t().del(`${CONTROLLERS}${a.id}/`).expect(204);
    expect((await get(`${DEVICES}${ap.id}/`)).controller_managed_device_group).toBeNull();
    await t().get(`${GROUPS}${floor.id}/`).expect(404);
  });

  it('groups interfaces for a redundancy protocol with a priority each, listing the associations', async () => {
    const r1 = await post(DEVICES, device({ name: 'r1' }));
    const eth = await post('/api/dcim/interfaces/', { device: r1.id, name: 'eth0', type: '1000base-t', status: 'Active' });
    expect(await refuse('/api/dcim/interface-redundancy-groups/', { name: 'hsrp10', status: 'Active' })).toEqual({ protocol: ['This field is required.'] });
    const group = await post('/api/dcim/interface-redundancy-groups/', { name: 'hsrp10', status: 'Active', protocol: 'hsrp', protocol_group_id: '10' });
    expect(group).toMatchObject({ protocol: { value: 'hsrp', label: 'HSRP' }, interfaces: [], virtual_ip: null });
    const assoc = await post('/api/dcim/interface-redundancy-group-associations/', { interface_redundancy_group: { name: 'hsrp10' }, interface: eth.id, priority: 100 });
    expect(assoc.display).toBe('hsrp10: r1 eth0: 100');
    expect(await refuse('/api/dcim/interface-redundancy-group-associations/', { interface_redundancy_group: group.id, interface: eth.id, priority: 50 })).toEqual({
      non_field_errors: ['The fields interface_redundancy_group, interface must make a unique set.'],
    });
    expect((await get(`/api/dcim/interface-redundancy-groups/${group.id}/`)).interfaces).toEqual([expect.objectContaining({ id: assoc.id, object_type: 'dcim.interfaceredundancygroupassociation' })]);
    expect(await ids(`/api/dcim/interface-redundancy-groups/?interfaces=${eth.id}&protocol=hsrp`)).toEqual([group.id]);
    expect(await ids(`/api/dcim/interface-redundancy-group-associations/?interface_redundancy_group=hsrp10&priority=100`)).toEqual([assoc.id]);
  });

  it('slices a device into contexts unique by name and identifier, with primary IPs on the device and a device that never changes', async () => {
    const n7k = await post(DEVICES, device({ name: 'n7k' }));
    const other = await post(DEVICES, device({ name: 'n7k-b' }));
    const eth = await post('/api/dcim/interfaces/', { device: n7k.id, name: 'mgmt0', type: '1000base-t', status: 'Active' });
    await post('/api/ipam/prefixes/', { prefix: '192.0.2.0/24', status: 'Active' });
    const ip = await post('/api/ipam/ip-addresses/', { address: '192.0.2.10/24', status: 'Active', namespace: { name: 'Global' } });
    const vdc = await post(VDCS, { name: 'admin', device: n7k.id, identifier: 1, status: 'Active' });
    expect(vdc).toMatchObject({ display: 'admin', identifier: 1, primary_ip4: null, primary_ip6: null, interfaces: [], tenant: null, role: null });
    expect(await refuse(VDCS, { name: 'admin', device: n7k.id, identifier: 2, status: 'Active' })).toEqual({ non_field_errors: ['The fields device, name must make a unique set.'] });
    expect(await refuse(VDCS, { name: 'prod', device: n7k.id, identifier: 1, status: 'Active' })).toEqual({ non_field_errors: ['The fields device, identifier must make a unique set.'] });
    await post(VDCS, { name: 'admin', device: other.id, identifier: 1, status: 'Active' });
    await post(VDCS, { name: 'blank1', device: n7k.id, status: 'Active' });
    await post(VDCS, { name: 'blank2', device: n7k.id, status: 'Active' });

    expect(await patch(`${VDCS}${vdc.id}/`, { primary_ip4: ip.id }, 400)).toEqual({ primary_ip4: ["192.0.2.10/24 is not part of an interface that belongs to this VDC's device."] });
    expect(await patch(`${VDCS}${vdc.id}/`, { primary_ip6: ip.id }, 400)).toEqual({ primary_ip6: ['192.0.2.10/24 is not an IPv6 address.'] });
    await post('/api/ipam/ip-address-to-interface/', { ip_address: ip.id, interface: eth.id });
    expect((await patch(`${VDCS}${vdc.id}/`, { primary_ip4: ip.id })).primary_ip4).toMatchObject({ id: ip.id });
    expect(await ids(`${VDCS}?has_primary_ip=true`)).toEqual([vdc.id]);
    expect(await patch(`${VDCS}${vdc.id}/`, { device: other.id }, 400)).toEqual({ non_field_errors: ['Changing the device of a VirtualDeviceContext is not allowed.'] });

    const assignment = await post('/api/dcim/interface-vdc-assignments/', { virtual_device_context: vdc.id, interface: eth.id });
    expect(assignment.display).toBe('admin: mgmt0');
    expect(await refuse('/api/dcim/interface-vdc-assignments/', { virtual_device_context: vdc.id, interface: eth.id })).toEqual({
      non_field_errors: ['The fields virtual_device_context, interface must make a unique set.'],
    });
    expect((await get(`${VDCS}${vdc.id}/`)).interfaces).toEqual([expect.objectContaining({ id: eth.id, object_type: 'dcim.interface' })]);
    expect(await ids(`${VDCS}?interfaces=${eth.id}&has_interfaces=true`)).toEqual([vdc.id]);
    expect(await ids(`/api/dcim/interface-vdc-assignments/?device=n7k`)).toEqual([assignment.id]);
    // Contexts go with their device, and their interface assignments with them.
    await t().del(`${DEVICES}${n7k.id}/`).expect(204);
    await t().get(`${VDCS}${vdc.id}/`).expect(404);
    expect((await get('/api/dcim/interface-vdc-assignments/')).count).toBe(0);
  });
  it('finds each object again by the filters the Ansible modules look it up with', async () => {
    const host = await post(DEVICES, device({ name: 'lookup-host' }));
    const v = await post(VERSIONS, { platform: nxos.id, version: '17.3', status: 'Active' });
    const drg = await post('/api/dcim/device-redundancy-groups/', { name: 'lookup-pair', status: 'Active' });
    const ctl = await post(CONTROLLERS, { name: 'lookup-ctl', status: 'Active', location: site.id, controller_device: host.id });
    const grp = await post(GROUPS, { name: 'lookup-grp', controller: ctl.id, weight: 100 });
    const vdc = await post(VDCS, { name: 'lookup-vdc', device: host.id, identifier: 9, status: 'Active' });
    expect(await ids(`${VERSIONS}?version=17.3&platform=NX-OS`)).toEqual([v.id]);
    expect(await ids(`/api/dcim/device-redundancy-groups/?name=lookup-pair`)).toEqual([drg.id]);
    expect(await ids(`${CONTROLLERS}?name=lookup-ctl`)).toEqual([ctl.id]);
    expect(await ids(`${GROUPS}?name=lookup-grp&controller=${ctl.id}`)).toEqual([grp.id]);
    expect(await ids(`${VDCS}?name=lookup-vdc&device=${host.id}`)).toEqual([vdc.id]);
    // A device named without its location is no natural key (the reference pads the key with nulls): the module must send an id.
    expect(await refuse(CONTROLLERS, { name: 'by-name', status: 'Active', location: site.id, controller_device: 'lookup-host' })).toEqual({
      controller_device: [expect.stringContaining('Related object not found')],
    });
  });
});
