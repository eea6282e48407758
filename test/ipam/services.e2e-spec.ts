import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Services (SSH, HTTP) on a device or a virtual machine, as Nautobot 2.4 serves them: exactly one
 * parent, a name unique per parent, ports as a list of 1-65535, shown as ranges, and the filters
 * pynautobot and the Ansible `service` module use.
 */
eachDatabase('services', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  let device: { id: string };
  let vm: { id: string };

  beforeAll(async () => {
    const hall = await post('/api/dcim/location-types/', { name: 'Hall', content_types: ['dcim.device'] });
    const site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: hall.id, status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'Acme' });
    const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box' });
    const role = await post('/api/extras/roles/', { name: 'Server', content_types: ['dcim.device'] });
    device = await post('/api/dcim/devices/', { name: 'srv1', device_type: type.id, role: role.id, status: 'Active', location: site.id });
    const clusterType = await post('/api/virtualization/cluster-types/', { name: 'KVM' });
    const cluster = await post('/api/virtualization/clusters/', { name: 'c1', cluster_type: clusterType.id });
    vm = await post('/api/virtualization/virtual-machines/', { name: 'vm1', cluster: cluster.id, status: 'Active' });
  });

  it('shows ports as ranges, filters by port, device and VM by name, and sorts by protocol then ports', async () => {
    const ssh = await post('/api/ipam/services/', { device: device.id, name: 'ssh', protocol: 'tcp', ports: [22] });
    expect(ssh).toMatchObject({ display: 'ssh (TCP/22)', protocol: { value: 'tcp', label: 'TCP' }, ports: [22], virtual_machine: null, ip_addresses: [] });
    const web = await post('/api/ipam/services/', { device: device.id, name: 'web', protocol: 'tcp', ports: [443, 80, 81, 82] });
    expect(web.display).toBe('web (TCP/80-82, 443)');
    const dns = await post('/api/ipam/services/', { virtual_machine: vm.id, name: 'dns', protocol: 'udp', ports: [53] });
    const names = async (query: string) => (await t().get(`/api/ipam/services/?${query}`).expect(200)).body.results.map((s: { name: string }) => s.name);
    expect(await names('ports=80')).toEqual(['web']);
    expect(await names('ports=22&ports=53')).toEqual(['ssh', 'dns']);
    expect(await names('device=srv1')).toEqual(['ssh', 'web']);
    expect(await names(`virtual_machine=${vm.id}`)).toEqual(['dns']);
    expect(await names('protocol=udp')).toEqual(['dns']);
    expect(await names('')).toEqual(['ssh', 'web', 'dns']);
    await t().get('/api/ipam/services/?ports=abc').expect(400);
    expect((await t().get(`/api/virtualization/virtual-machines/${vm.id}/`).expect(200)).body.name).toBe('vm1');
    await t().del('/api/ipam/services/', [ssh, web, dns].map((s) => ({ id: s.id }))).expect(204);
  });

  it('refuses what the reference refuses, with its messages, changing nothing', async () => {
    const refuse = async (body: object) => (await t().post('/api/ipam/services/', body).expect(400)).body;
    expect(await refuse({ name: 'x', protocol: 'tcp', ports: [22] })).toEqual({ __all__: ['A service must be associated with either a device or a virtual machine.'] });
    expect(await refuse({ device: device.id, virtual_machine: vm.id, name: 'x', protocol: 'tcp', ports: [22] })).toEqual({
      __all__: ['A service cannot be associated with both a device and a virtual machine.'],
    });
    expect((await refuse({ device: device.id, name: 'x', protocol: 'tcp', ports: [0] })).ports).toEqual(['Ensure this value is greater than or equal to 1.']);
    expect((await refuse({ device: device.id, name: 'x', protocol: 'tcp', ports: [65536] })).ports).toEqual(['Ensure this value is less than or equal to 65535.']);
    expect((await refuse({ device: device.id, name: 'x', protocol: 'tcp', ports: ['a'] })).ports).toEqual(['A valid integer is required.']);
    expect((await refuse({ device: device.id, name: 'x', protocol: 'tcp', ports: 22 })).ports).toEqual(['Expected a list of items but got type "number".']);
    expect((await refuse({ device: device.id, name: 'x', protocol: 'sctp', ports: [22] })).protocol).toEqual(['sctp is not a valid choice.']);
    expect((await t().get('/api/ipam/services/?name=x').expect(200)).body.count).toBe(0);
    // Ports as text are read as DRF's IntegerField reads them.
    expect((await post('/api/ipam/services/', { device: device.id, name: 'snmp', protocol: 'udp', ports: ['161', '162.0'] })).ports).toEqual([161, 162]);
    await post('/api/ipam/services/', { device: device.id, name: 'ntp', protocol: 'udp', ports: [123] });
    expect((await refuse({ device: device.id, name: 'ntp', protocol: 'udp', ports: [124] })).non_field_errors).toEqual(['The fields name, device must make a unique set.']);
    // The same name on another parent is another service.
    await post('/api/ipam/services/', { virtual_machine: vm.id, name: 'ntp', protocol: 'udp', ports: [123] });
    expect((await t().get('/api/ipam/services/?name=ntp').expect(200)).body.count).toBe(2);
  });

  it('is deleted with its device or virtual machine, and keeps its addresses', async () => {
    const clusterType = await post('/api/virtualization/cluster-types/', { name: 'Xen' });
    const cluster = await post('/api/virtualization/clusters/', { name: 'c2', cluster_type: clusterType.id });
    const short = await post('/api/virtualization/virtual-machines/', { name: 'short-lived', cluster: cluster.id, status: 'Active' });
    await post('/api/ipam/prefixes/', { prefix: '192.0.2.0/24', status: 'Active' });
    const ip = await post('/api/ipam/ip-addresses/', { address: '192.0.2.10/24', status: 'Active', namespace: 'Global' });
    const svc = await post('/api/ipam/services/', { virtual_machine: short.id, name: 'http', protocol: 'tcp', ports: [80], ip_addresses: [ip.id] });
    expect(svc.ip_addresses.map((a: { id: string }) => a.id)).toEqual([ip.id]);
    await t().del(`/api/virtualization/virtual-machines/${short.id}/`).expect(204);
    await t().get(`/api/ipam/services/${svc.id}/`).expect(404);
    await t().get(`/api/ipam/ip-addresses/${ip.id}/`).expect(200);
  });
});
