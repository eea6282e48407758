import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * `ip_addresses` on virtual machines, VM interfaces, devices and interfaces takes an address's
 * UUID or its text (the reference's "IP addresses (address or ID)": `192.0.2.10/24`, the mask
 * matching; a bare address is a host route), several values matching any; a UUID naming
 * nothing matches nothing; text that is no address is a 400.
 */
eachDatabase('ip_addresses filters by address or id', (t) => {
  const post = async (path: string, body: object) => {
    const res = await t().post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const names = async (path: string) => ((await t().get(path).expect(200)).body.results as Obj[]).map((o) => o.name).sort();
  const w: Obj = {};

  beforeAll(async () => {
    const type = await post('/api/dcim/location-types/', { name: 'IPF site', content_types: ['dcim.device', 'virtualization.cluster'] });
    const site = await post('/api/dcim/locations/', { name: 'IPF 1', location_type: type.id, status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'IPF maker' });
    const role = await post('/api/extras/roles/', { name: 'IPF role', content_types: ['dcim.device'] });
    const chassis = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'IPF chassis' });
    const kvm = await post('/api/virtualization/cluster-types/', { name: 'IPF KVM' });
    const cluster = await post('/api/virtualization/clusters/', { name: 'ipf-cluster', cluster_type: kvm.id, location: site.id });
    await post('/api/ipam/prefixes/', { prefix: '192.0.2.0/24', status: 'Active', namespace: 'Global' });
    await post('/api/ipam/prefixes/', { prefix: '2001:db8:9::/64', status: 'Active', namespace: 'Global' });
    const [a, b, c, host] = await post(
      '/api/ipam/ip-addresses/',
      ['192.0.2.10/24', '192.0.2.11/24', '2001:db8:9::1/64', '192.0.2.12/32'].map((address) => ({ address, status: 'Active', namespace: 'Global' })),
    );
    Object.assign(w, { a, b, c, host });
    for (const [n, ip] of [[1, a], [2, b], [3, c], [4, host]] as const) {
      const vm = await post('/api/virtualization/virtual-machines/', { name: `ipf-vm${n}`, cluster: cluster.id, status: 'Active' });
      const vif = await post('/api/virtualization/interfaces/', { virtual_machine: vm.id, name: `ipf-eth${n}`, status: 'Active' });
      const device = await post('/api/dcim/devices/', { name: `ipf-dev${n}`, device_type: chassis.id, role: role.id, status: 'Active', location: site.id });
      const iface = await post('/api/dcim/interfaces/', { device: device.id, name: `ipf-ge${n}`, type: '1000base-t', status: 'Active' });
      await post('/api/ipam/ip-address-to-interface/', [{ ip_address: ip.id, vm_interface: vif.id }, { ip_address: ip.id, interface: iface.id }]);
    }
    await post('/api/virtualization/virtual-machines/', { name: 'ipf-vm0', cluster: cluster.id, status: 'Active' });
    await post('/api/dcim/devices/', { name: 'ipf-dev0', device_type: chassis.id, role: role.id, status: 'Active', location: site.id });
  });

  const lists: [string, string, string][] = [
    ['virtual machines', '/api/virtualization/virtual-machines/?name__isw=ipf-vm&', 'ipf-vm'],
    ['VM interfaces', '/api/virtualization/interfaces/?name__isw=ipf-eth&', 'ipf-eth'],
    ['devices', '/api/dcim/devices/?name__isw=ipf-dev&', 'ipf-dev'],
    ['interfaces', '/api/dcim/interfaces/?name__isw=ipf-ge&', 'ipf-ge'],
  ];

  it.each(lists)('finds %s by address text, by id, or both', async (_what, base, name) => {
    expect(await names(`${base}ip_addresses=192.0.2.10/24`)).toEqual([`${name}1`]);
    expect(await names(`${base}ip_addresses=192.0.2.10/24&ip_addresses=2001:db8:9::1/64`)).toEqual([`${name}1`, `${name}3`]);
    expect(await names(`${base}ip_addresses=${w.b.id}&ip_addresses=192.0.2.12`)).toEqual([`${name}2`, `${name}4`]);
    // The mask must match; a UUID naming no address matches nothing.
    expect(await names(`${base}ip_addresses=192.0.2.10/25`)).toEqual([]);
    expect(await names(`${base}ip_addresses=192.0.2.10`)).toEqual([]);
    expect(await names(`${base}ip_addresses=6f1c2d3e-4a5b-4c6d-8e7f-901234567890`)).toEqual([]);
    expect((await t().get(`${base}ip_addresses=not-an-address`).expect(400)).body).toEqual({ ip_addresses: ['Select a valid choice. not-an-address is not one of the available choices.'] });
  });

  it('finds devices with and without addresses (has_ip_addresses)', async () => {
    expect(await names('/api/dcim/devices/?name__isw=ipf-dev&has_ip_addresses=true')).toEqual(['ipf-dev1', 'ipf-dev2', 'ipf-dev3', 'ipf-dev4']);
    expect(await names('/api/dcim/devices/?name__isw=ipf-dev&has_ip_addresses=false')).toEqual(['ipf-dev0']);
  });
});
