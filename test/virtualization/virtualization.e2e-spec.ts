import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * Virtualization as Nautobot 2.4 serves it: cluster types, groups and clusters (with their host
 * devices), virtual machines (name unique per cluster and tenant, primary IPs from their own
 * interfaces) and their interfaces (802.1Q rules), and what they make real elsewhere: addresses
 * on VM interfaces and their filters, VRFs on VMs, and the VM counts of locations and platforms.
 */
eachDatabase('virtualization', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const get = async (path: string) => (await t().get(path).expect(200)).body;
  const names = async (path: string) => (await get(path)).results.map((o: Obj) => o.name).sort();
  let region: Obj;
  let site: Obj;
  let room: Obj;
  let other: Obj;
  let kvm: Obj;
  let group: Obj;
  let tenant: Obj;
  let cluster: Obj;
  let elsewhere: Obj;
  let vm: (name: string, body?: object) => Promise<Obj>;

  beforeAll(async () => {
    const regionType = await post('/api/dcim/location-types/', { name: 'Region', content_types: [] });
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', parent: regionType.id, content_types: ['virtualization.cluster', 'dcim.device', 'ipam.vlan'] });
    const roomType = await post('/api/dcim/location-types/', { name: 'Room', parent: siteType.id, content_types: ['dcim.device'] });
    region = await post('/api/dcim/locations/', { name: 'Europe', location_type: regionType.id, status: 'Active' });
    site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, parent: region.id, status: 'Active' });
    room = await post('/api/dcim/locations/', { name: 'AMS1 hall', location_type: roomType.id, parent: site.id, status: 'Active' });
    other = await post('/api/dcim/locations/', { name: 'FRA1', location_type: siteType.id, parent: region.id, status: 'Active' });
    kvm = await post('/api/virtualization/cluster-types/', { name: 'KVM', description: 'libvirt' });
    group = await post('/api/virtualization/cluster-groups/', { name: 'Production' });
    tenant = await post('/api/tenancy/tenants/', { name: 'Acme' });
    cluster = await post('/api/virtualization/clusters/', { name: 'ams-kvm', cluster_type: kvm.id, cluster_group: group.id, location: site.id, tenant: tenant.id });
    elsewhere = await post('/api/virtualization/clusters/', { name: 'fra-kvm', cluster_type: kvm.id, location: other.id });
    vm = (name, body = {}) => post('/api/virtualization/virtual-machines/', { name, cluster: cluster.id, status: 'Active', ...body });
  });

  it('serves cluster types, groups and clusters with unique names, counts and protection', async () => {
    expect(await refuse('/api/virtualization/cluster-types/', { name: 'KVM' })).toEqual({ name: ['cluster type with this Name already exists.'] });
    expect(await refuse('/api/virtualization/cluster-groups/', { name: 'Production' })).toEqual({ name: ['cluster group with this Name already exists.'] });
    expect(await refuse('/api/virtualization/clusters/', { name: 'ams-kvm', cluster_type: kvm.id })).toEqual({ name: ['cluster with this Name already exists.'] });
    expect(await refuse('/api/virtualization/clusters/', { name: 'x' })).toEqual({ cluster_type: ['This field is required.'] });
    expect(await refuse('/api/virtualization/clusters/', { name: 'x', cluster_type: kvm.id, location: region.id })).toEqual({
      location: ['Clusters may not associate to locations of type "Region".'],
    });
    const c = await get(`/api/virtualization/clusters/${cluster.id}/`);
    expect(c).toMatchObject({ display: 'ams-kvm', cluster_type: { id: kvm.id }, cluster_group: { id: group.id }, location: { id: site.id }, tenant: { id: tenant.id }, comments: '' });
    expect(c).toHaveProperty('device_count', 0);
    expect(c).toHaveProperty('virtualmachine_count', 0);
    expect((await get(`/api/virtualization/cluster-types/${kvm.id}/`)).cluster_count).toBe(2);
    expect((await get(`/api/virtualization/cluster-groups/${group.id}/`)).cluster_count).toBe(1);
    expect((await t().del(`/api/virtualization/cluster-types/${kvm.id}/`)).status).toBe(409);
    expect(await names(`/api/virtualization/clusters/?cluster_type=KVM&cluster_group_id=${group.id}`)).toEqual(['ams-kvm']);
    expect(await names(`/api/virtualization/clusters/?location=${region.id}`)).toEqual(['ams-kvm', 'fra-kvm']);
    expect(await names('/api/virtualization/cluster-types/?clusters=fra-kvm')).toEqual(['KVM']);
    expect(await names('/api/dcim/locations/?has_clusters=true')).toEqual(['AMS1', 'FRA1']);
  });

  it('puts host devices in a cluster of their location or above it', async () => {
    const maker = await post('/api/dcim/manufacturers/', { name: 'Supermicro' });
    const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'SYS-1029' });
    const role = await post('/api/extras/roles/', { name: 'Hypervisor', content_types: ['dcim.device'] });
    const host = (name: string, location: Obj, body: object = {}) => ({ name, device_type: type.id, role: role.id, status: 'Active', location: location.id, ...body });
    const h1 = await post('/api/dcim/devices/', host('hv1', room, { cluster: cluster.id }));
    expect(h1.cluster).toMatchObject({ id: cluster.id, object_type: 'virtualization.cluster' });
    expect(await refuse('/api/dcim/devices/', host('hv2', other, { cluster: cluster.id }))).toEqual({ cluster: ['The assigned cluster belongs to a location that does not include FRA1.'] });
    expect((await get(`/api/virtualization/clusters/${cluster.id}/`)).device_count).toBe(1);
    expect(await names(`/api/dcim/devices/?cluster=ams-kvm`)).toEqual(['hv1']);
    expect(await names(`/api/virtualization/clusters/?devices=${h1.id}`)).toEqual(['ams-kvm']);
    expect(await names('/api/virtualization/clusters/?has_devices=false')).toEqual(['fra-kvm']);
    // The reference compares a cluster's hosts with its own location exactly: a host below it stops a save.
    expect((await t().patch(`/api/virtualization/clusters/${cluster.id}/`, { comments: 'x' }).expect(400)).body).toEqual({
      location: ['1 devices are assigned as hosts for this cluster but belong to a location other than "AMS1".'],
    });
    const bulk = await t().patch('/api/virtualization/clusters/', [{ id: elsewhere.id, comments: 'x' }, { id: cluster.id, comments: 'x' }]).expect(400);
    expect(bulk.body).toEqual({ location: ['1 devices are assigned as hosts for this cluster but belong to a location other than "AMS1".'] });
    expect((await get(`/api/virtualization/clusters/${elsewhere.id}/`)).comments).toBe('');
    await t().patch(`/api/dcim/devices/${h1.id}/`, { location: site.id }).expect(200);
    await t().patch(`/api/virtualization/clusters/${cluster.id}/`, { comments: 'hosts' }).expect(200);
    await t().patch(`/api/dcim/devices/${h1.id}/`, { cluster: null }).expect(200);
  });

  it('keeps VM names unique per cluster and tenant, with the reference messages', async () => {
    const a = await vm('web1');
    expect(a).toMatchObject({ display: 'web1', cluster: { id: cluster.id }, tenant: null, platform: null, role: null, vcpus: null, memory: null, disk: null, primary_ip4: null, primary_ip6: null, comments: '', local_config_context_data: null });
    expect(a).not.toHaveProperty('location');
    expect(await refuse('/api/virtualization/virtual-machines/', { name: 'web1', cluster: cluster.id, status: 'Active' })).toEqual({
      name: ['A virtual machine with this name already exists in the assigned cluster.'],
    });
    await vm('web1', { tenant: tenant.id });
    expect(await refuse('/api/virtualization/virtual-machines/', { name: 'web1', cluster: cluster.id, tenant: tenant.id, status: 'Active' })).toEqual({
      __all__: ['Virtual machine with this Cluster, Tenant and Name already exists.'],
    });
    await vm('web1', { cluster: elsewhere.id });
    // Two in one request collide too.
    const both = await t().post('/api/virtualization/virtual-machines/', [{ name: 'db1', cluster: cluster.id, status: 'Active' }, { name: 'db1', cluster: cluster.id, status: 'Active' }]).expect(400);
    expect(both.body).toEqual([{}, { name: ['A virtual machine with this name already exists in the assigned cluster.'] }]);
    // The reference's default statuses for VMs.
    await vm('staged1', { status: 'Staged', vcpus: 4, memory: 8192, disk: 100 });
    expect(await refuse('/api/virtualization/virtual-machines/', { name: 'x', cluster: cluster.id, status: 'Active', vcpus: 40000 })).toHaveProperty('vcpus');
    expect(await names('/api/virtualization/virtual-machines/?vcpus__gte=4&status=Staged')).toEqual(['staged1']);
    expect(await names(`/api/virtualization/virtual-machines/?cluster=fra-kvm`)).toEqual(['web1']);
    expect(await names(`/api/virtualization/virtual-machines/?cluster_type=KVM&cluster_group=Production&name=web1`)).toEqual(['web1', 'web1']);
    expect((await get(`/api/virtualization/clusters/${cluster.id}/`)).virtualmachine_count).toBe(3);
    expect((await t().del(`/api/virtualization/clusters/${cluster.id}/`)).status).toBe(409);
  });

  it("places VMs where their cluster is: the location filter and the locations' VM counts", async () => {
    const platform = await post('/api/dcim/platforms/', { name: 'Ubuntu' });
    const nowhere = await post('/api/virtualization/clusters/', { name: 'lab', cluster_type: kvm.id });
    await vm('lab1', { cluster: nowhere.id, platform: platform.id });
    await vm('lab2', { platform: platform.id });
    const count = async (l: Obj) => (await get(`/api/dcim/locations/${l.id}/`)).virtual_machine_count;
    const here = (await get(`/api/virtualization/virtual-machines/?location=${site.id}&limit=1000`)).count;
    expect(here).toBeGreaterThan(0);
    expect(await count(site)).toBe(here);
    expect(await count(other)).toBe(1);
    // The count is the location's own VMs (as the reference's annotation); the filter includes descendants.
    expect(await count(region)).toBe(0);
    expect((await get(`/api/virtualization/virtual-machines/?location=${region.id}&limit=1000`)).count).toBe(here + 1);
    const listed = (await get(`/api/dcim/locations/?name=AMS1&name=FRA1`)).results.map((l: Obj) => [l.name, l.virtual_machine_count]);
    expect(listed).toEqual([['AMS1', here], ['FRA1', 1]]);
    expect((await get(`/api/dcim/platforms/${platform.id}/`)).virtual_machine_count).toBe(2);
    expect(await names(`/api/dcim/platforms/?has_virtual_machines=true`)).toEqual(['Ubuntu']);
  });

  it('orders VM interfaces naturally and keeps their names unique per VM', async () => {
    const box = await vm('iface-host');
    for (const name of ['eth10', 'eth2', 'eth1']) await post('/api/virtualization/interfaces/', { virtual_machine: box.id, name, status: 'Active' });
    expect((await get(`/api/virtualization/interfaces/?virtual_machine_id=${box.id}`)).results.map((o: Obj) => o.name)).toEqual(['eth1', 'eth2', 'eth10']);
    expect(await refuse('/api/virtualization/interfaces/', { virtual_machine: box.id, name: 'eth1', status: 'Active' })).toEqual({
      non_field_errors: ['The fields virtual_machine, name must make a unique set.'],
    });
    const sub = await post('/api/virtualization/interfaces/', { virtual_machine: box.id, name: 'eth1.100', status: 'Active', mac_address: '00-1a-2b-3c-4d-5e', mtu: 9000 });
    expect(sub).toMatchObject({ display: 'eth1.100', enabled: true, mac_address: '00:1A:2B:3C:4D:5E', mtu: 9000, mode: null, ip_addresses: [], tagged_vlans: [] });
    expect(await refuse('/api/virtualization/interfaces/', { virtual_machine: box.id, name: 'x', status: 'Active', mac_address: 'nope' })).toEqual({ mac_address: ['Invalid MAC address format: nope'] });
    expect(await names('/api/virtualization/interfaces/?mac_address=001a.2b3c.4d5e')).toEqual(['eth1.100']);
    expect(await names('/api/virtualization/virtual-machines/?mac_address=00:1a:2b:3c:4d:5e')).toEqual(['iface-host']);
    expect(await names(`/api/virtualization/virtual-machines/?has_interfaces=true&name=iface-host`)).toEqual(['iface-host']);
    expect(await names('/api/virtualization/interfaces/?cluster=ams-kvm&name=eth2')).toEqual(['eth2']);
  });

  it('applies the 802.1Q rules of VM interfaces with the reference messages', async () => {
    const box = await vm('vlan-host');
    const local = await post('/api/ipam/vlans/', { vid: 100, name: 'ams-users', status: 'Active', locations: [site.id] });
    const far = await post('/api/ipam/vlans/', { vid: 200, name: 'fra-users', status: 'Active', locations: [other.id] });
    const global = await post('/api/ipam/vlans/', { vid: 300, name: 'global', status: 'Active' });
    const iface = (name: string, body: object) => ({ virtual_machine: box.id, name, status: 'Active', ...body });
    expect(await refuse('/api/virtualization/interfaces/', iface('v1', { mode: 'access', tagged_vlans: [global.id] }))).toEqual({
      tagged_vlans: ['Mode must be set to tagged when specifying tagged_vlans'],
    });
    expect(await refuse('/api/virtualization/interfaces/', iface('v1', { untagged_vlan: local.id }))).toEqual({ untagged_vlan: ['Mode must be set when specifying untagged_vlan'] });
    expect(await refuse('/api/virtualization/interfaces/', iface('v1', { mode: 'tagged', tagged_vlans: [far.id] }))).toEqual({
      tagged_vlans: ["VLAN fra-users (200) must belong to the same location as the interface's parent virtual machine, or it must be global."],
    });
    const trunk = await post('/api/virtualization/interfaces/', iface('v1', { mode: 'tagged', untagged_vlan: local.id, tagged_vlans: [local.id, global.id] }));
    expect(trunk.tagged_vlans.map((v: Obj) => v.id).sort()).toEqual([local.id, global.id].sort());
    expect(await names(`/api/virtualization/interfaces/?vlan_id=${global.id}`)).toEqual(['v1']);
    expect(await names(`/api/virtualization/interfaces/?has_tagged_vlans=true&virtual_machine_id=${box.id}`)).toEqual(['v1']);
    const url = `/api/virtualization/interfaces/${trunk.id}/`;
    expect((await t().patch(url, { mode: 'access' }).expect(400)).body).toEqual({ tagged_vlans: ['Clear tagged_vlans to set mode to access'] });
    const access = (await t().patch(url, { mode: 'access', tagged_vlans: [] }).expect(200)).body;
    expect(access).toMatchObject({ mode: { value: 'access' }, tagged_vlans: [], untagged_vlan: { id: local.id } });
    // Back to tagged, then to tagged-all: the VLANs are cleared with the mode.
    await t().patch(url, { mode: 'tagged', tagged_vlans: [global.id] }).expect(200);
    expect((await t().patch(url, { mode: 'tagged-all', tagged_vlans: [] }).expect(200)).body.tagged_vlans).toEqual([]);
    // A VM whose cluster has no location takes only global VLANs.
    const nowhere = await post('/api/virtualization/clusters/', { name: 'vlan-lab', cluster_type: kvm.id });
    const loose = await vm('vlan-loose', { cluster: nowhere.id });
    expect(await refuse('/api/virtualization/interfaces/', { virtual_machine: loose.id, name: 'v1', status: 'Active', mode: 'tagged', tagged_vlans: [local.id] })).toEqual({
      tagged_vlans: ["VLAN ams-users (100) must belong to the same location as the interface's parent virtual machine, or it must be global."],
    });
  });

  it('assigns addresses to VM interfaces: filters, display, primary IPs and their release', async () => {
    const box = await vm('ip-host');
    const peer = await vm('ip-peer');
    const [eth0, eth1] = await t()
      .post('/api/virtualization/interfaces/', ['eth0', 'eth1'].map((name) => ({ virtual_machine: box.id, name, status: 'Active' })))
      .expect(201)
      .then((r) => r.body);
    const peerIface = await post('/api/virtualization/interfaces/', { virtual_machine: peer.id, name: 'eth0', status: 'Active' });
    await post('/api/ipam/prefixes/', [{ prefix: '203.0.113.0/24', status: 'Active' }, { prefix: '2001:db8:5::/64', status: 'Active' }]);
    const [v4, v6, far] = await post('/api/ipam/ip-addresses/', ['203.0.113.1/24', '2001:db8:5::1/64', '203.0.113.2/24'].map((address) => ({ address, status: 'Active', namespace: 'Global' })));
    const [a4, a6] = await post('/api/ipam/ip-address-to-interface/', [
      { ip_address: v4.id, vm_interface: eth0.id },
      { ip_address: v6.id, vm_interface: eth0.id },
      { ip_address: far.id, vm_interface: peerIface.id },
    ]);
    expect(a4).toMatchObject({ display: '203.0.113.1/24 ip-host eth0', interface: null, vm_interface: { id: eth0.id, object_type: 'virtualization.vminterface' } });
    expect((await t().post('/api/ipam/ip-address-to-interface/', { ip_address: v4.id, vm_interface: eth0.id }).expect(400)).body).toEqual({
      non_field_errors: ['The fields vm_interface, ip_address must make a unique set.'],
    });
    // Address filters by virtual machine and VM interface, as the reference's.
    const ids = async (q: string) => (await get(`/api/ipam/ip-addresses/?${q}`)).results.map((o: Obj) => o.id).sort();
    for (const q of ['virtual_machine=ip-host', `virtual_machine_id=${box.id}`, `vm_interface=${eth0.id}`, `vm_interface_id=${eth0.id}`, `vm_interfaces=${eth0.id}`]) {
      expect({ q, ids: await ids(q) }).toEqual({ q, ids: [v4.id, v6.id].sort() });
    }
    expect(await ids(`virtual_machine_id=${peer.id}&has_interface_assignments=true`)).toEqual([far.id]);
    expect((await t().get(`/api/ipam/ip-addresses/?virtual_machine_id=not-a-vm`)).status).toBe(400);
    expect((await get(`/api/virtualization/interfaces/${eth0.id}/`)).ip_addresses.map((o: Obj) => o.id).sort()).toEqual([v4.id, v6.id].sort());
    expect(await names(`/api/virtualization/virtual-machines/?ip_addresses=${far.id}`)).toEqual(['ip-peer']);
    expect(await names('/api/virtualization/virtual-machines/?has_ip_addresses=true')).toEqual(['ip-host', 'ip-peer']);
    // Primary IPs: of their family and on the VM's own interfaces.
    const url = `/api/virtualization/virtual-machines/${box.id}/`;
    expect((await t().patch(url, { primary_ip4: v6.id }).expect(400)).body).toEqual({ primary_ip4: ['2001:db8:5::1/64 is not an IPv4 address.'] });
    expect((await t().patch(url, { primary_ip6: v4.id }).expect(400)).body).toEqual({ primary_ip6: ['203.0.113.1/24 is not an IPv6 address.'] });
    expect((await t().patch(url, { primary_ip4: far.id }).expect(400)).body).toEqual({ primary_ip4: ['The specified IP address (203.0.113.2/24) is not assigned to this virtual machine.'] });
    expect((await t().patch(url, { primary_ip4: v4.id, primary_ip6: v6.id }).expect(200)).body).toMatchObject({ primary_ip4: { id: v4.id }, primary_ip6: { id: v6.id } });
    expect(await names('/api/virtualization/virtual-machines/?has_primary_ip=true')).toEqual(['ip-host']);
    // Assigned to a second interface too: removing one assignment keeps it primary; the last takes it.
    const again = await post('/api/ipam/ip-address-to-interface/', { ip_address: v4.id, vm_interface: eth1.id });
    await t().del(`/api/ipam/ip-address-to-interface/${a4.id}/`).expect(204);
    expect((await get(url)).primary_ip4).toMatchObject({ id: v4.id });
    await t().del(`/api/ipam/ip-address-to-interface/${again.id}/`).expect(204);
    expect((await get(url)).primary_ip4).toBeNull();
    // The VM interface holding the IPv6 address goes: its assignment and the primary IPv6 with it.
    await t().del(`/api/virtualization/interfaces/${eth0.id}/`).expect(204);
    expect((await t().get(`/api/ipam/ip-address-to-interface/${a6.id}/`)).status).toBe(404);
    expect((await get(url)).primary_ip6).toBeNull();
  });

  it('refuses an assignment to a DCIM and a VM interface at once', async () => {
    const box = await vm('both-host');
    const vnic = await post('/api/virtualization/interfaces/', { virtual_machine: box.id, name: 'eth0', status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'Both maker' });
    const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Both box' });
    const role = await post('/api/extras/roles/', { name: 'Both role', content_types: ['dcim.device'] });
    const d = await post('/api/dcim/devices/', { name: 'both1', device_type: type.id, role: role.id, status: 'Active', location: site.id });
    const nic = await post('/api/dcim/interfaces/', { device: d.id, name: 'eth0', type: '1000base-t', status: 'Active' });
    await post('/api/ipam/prefixes/', { prefix: '198.18.0.0/24', status: 'Active' });
    const ip = await post('/api/ipam/ip-addresses/', { address: '198.18.0.1/24', status: 'Active', namespace: 'Global' });
    expect(await refuse('/api/ipam/ip-address-to-interface/', { ip_address: ip.id, interface: nic.id, vm_interface: vnic.id })).toEqual({
      interface: ['Cannot use a single instance to associate to both an Interface and a VMInterface.'],
    });
    // A VRF on a device or on a virtual machine, exactly one.
    const vrf = await post('/api/ipam/vrfs/', { name: 'tenant-a', rd: '65000:1' });
    const path = '/api/ipam/vrf-device-assignments/';
    expect(await refuse(path, { vrf: vrf.id, device: d.id, virtual_machine: box.id })).toEqual({
      __all__: ['A VRFDeviceAssignment entry cannot be associated with both a device and a virtual machine.'],
    });
    expect(await refuse(path, { vrf: vrf.id })).toEqual({ __all__: ['A VRFDeviceAssignment entry must be associated with a device, a virtual machine, or a virtual device context.'] });
    const on = await post(path, { vrf: vrf.id, virtual_machine: box.id });
    expect(on).toMatchObject({ display: 'tenant-a [both-host] (rd: 65000:1, name: tenant-a)', device: null, virtual_machine: { id: box.id }, rd: '65000:1', name: 'tenant-a' });
    expect(await refuse(path, { vrf: vrf.id, virtual_machine: box.id })).toEqual({ non_field_errors: ['The fields virtual_machine, vrf must make a unique set.'] });
    expect((await get(`${path}?virtual_machine=${box.id}`)).count).toBe(1);
    // A VM deleted takes its interfaces, their assignments and its VRF assignments.
    await t().del(`/api/virtualization/virtual-machines/${box.id}/`).expect(204);
    expect((await t().get(`${path}${on.id}/`)).status).toBe(404);
    expect((await t().get(`/api/virtualization/interfaces/${vnic.id}/`)).status).toBe(404);
  });

  it('finds objects by the parameters the Ansible modules look them up with', async () => {
    const box = await vm('lookup-host', { vcpus: 2 });
    const vnic = await post('/api/virtualization/interfaces/', { virtual_machine: box.id, name: 'eth0', status: 'Active', mac_address: '00:1a:2b:3c:4d:6f' });
    await post('/api/ipam/prefixes/', { prefix: '198.19.0.0/24', status: 'Active' });
    const ip = await post('/api/ipam/ip-addresses/', { address: '198.19.0.1/24', status: 'Active', namespace: 'Global' });
    const assignment = await post('/api/ipam/ip-address-to-interface/', { ip_address: ip.id, vm_interface: vnic.id });
    // virtual_machine: name and cluster; vm_interface: name and virtual machine; an address: its VM interfaces by name.
    expect((await get('/api/virtualization/virtual-machines/?name=lookup-host&cluster=ams-kvm')).results.map((o: Obj) => o.id)).toEqual([box.id]);
    expect((await get('/api/virtualization/interfaces/?name=eth0&virtual_machine=lookup-host')).results.map((o: Obj) => o.id)).toEqual([vnic.id]);
    expect((await get('/api/ipam/ip-addresses/?address=198.19.0.1/24&vm_interfaces=eth0')).results.map((o: Obj) => o.id)).toEqual([ip.id]);
    expect((await get(`/api/ipam/ip-address-to-interface/?ip_address=${ip.id}&vm_interface=${vnic.id}`)).results.map((o: Obj) => o.id)).toEqual([assignment.id]);
    expect((await get(`/api/ipam/ip-address-to-interface/?vm_interface=${vnic.id}&interface__isnull=true`)).count).toBe(1);
    // What a module writes back is what it reads: an unchanged PATCH changes nothing it compares.
    const again = (await t().patch(`/api/virtualization/interfaces/${vnic.id}/`, { mac_address: '00:1A:2B:3C:4D:6F', mode: 'access' }).expect(200)).body;
    expect(again).toMatchObject({ mac_address: '00:1A:2B:3C:4D:6F', mode: { value: 'access', label: 'Access' } });
    // A cluster's, group's and type's deletion follows the reference: a cluster with VMs is protected, host devices are released.
    expect((await t().del(`/api/virtualization/cluster-groups/${group.id}/`)).status).toBe(409);
  });
});
