import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * A filter that reads other objects on its way reads only those the requester may view: a
 * constrained user cannot learn about a hidden object through what a filter matches (a hidden
 * module in a device's bay, a hidden interface carrying a MAC or an address, a hidden image
 * file, association, assignment or prefix). Each case: the administrator's answer shows the
 * object would match through the hidden one; the constrained user's does not.
 */
eachDatabase('filters through hidden objects', (t) => {
  const post = async (path: string, body: object) => {
    const res = await t().post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const ids = async (path: string, token?: string) => ((await t().get(path, token).expect(200)).body.results as Obj[]).map((o) => o.id).sort();
  let tok = '';
  const w: Obj = {};

  beforeAll(async () => {
    const siteType = await post('/api/dcim/location-types/', { name: 'Leak site', content_types: ['dcim.device', 'dcim.module', 'virtualization.cluster', 'ipam.vlan', 'dcim.rack'] });
    w.site = await post('/api/dcim/locations/', { name: 'Leak site 1', location_type: siteType.id, status: 'Active' });
    w.rack = await post('/api/dcim/racks/', { name: 'Leak rack', location: w.site.id, status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'Leak maker' });
    const role = await post('/api/extras/roles/', { name: 'Leak role', content_types: ['dcim.device'] });
    w.chassis = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Leak chassis' });
    const card = await post('/api/dcim/module-types/', { manufacturer: maker.id, model: 'Leak card' });
    await post('/api/dcim/interface-templates/', { module_type: card.id, name: 'card-{module}', type: '10gbase-x-sfpp' });
    await post('/api/dcim/module-bay-templates/', { module_type: card.id, name: 'Sub', position: 's' });
    const device = (name: string, extra: Obj = {}) => post('/api/dcim/devices/', { name, device_type: w.chassis.id, role: role.id, status: 'Active', location: w.site.id, ...extra });
    w.holder = await device('leak-holder');
    w.open = await device('leak-open');
    w.hiddenDevice = await device('leak-hidden', { rack: w.rack.id });
    // A hidden module in the holder's bay, and a visible module in the hidden one's bay.
    const bay = await post('/api/dcim/module-bays/', { parent_device: w.holder.id, name: 'Slot 1', position: '1' });
    w.hiddenModule = await post('/api/dcim/modules/', { module_type: card.id, parent_module_bay: bay.id, status: 'Active', serial: 'HIDDEN' });
    const [sub] = (await t().get(`/api/dcim/module-bays/?parent_module=${w.hiddenModule.id}`).expect(200)).body.results;
    w.nestedModule = await post('/api/dcim/modules/', { module_type: card.id, parent_module_bay: sub.id, status: 'Active', serial: 'nested' });
    [w.hiddenModuleInterface] = (await t().get(`/api/dcim/interfaces/?module=${w.hiddenModule.id}`).expect(200)).body.results;
    w.storedModule = await post('/api/dcim/modules/', { module_type: card.id, location: w.site.id, status: 'Active', serial: 'stored' });
    // Interfaces hidden from the user, with a MAC address and an IP address.
    w.hiddenInterface = await post('/api/dcim/interfaces/', { device: w.open.id, name: 'hidden0', type: '1000base-t', status: 'Active', mac_address: '00:11:22:33:44:01' });
    const [storedInterface] = (await t().get(`/api/dcim/interfaces/?module=${w.storedModule.id}`).expect(200)).body.results;
    await t().patch(`/api/dcim/interfaces/${storedInterface.id}/`, { mac_address: '00:11:22:33:44:02' }).expect(200);
    w.hiddenModuleInterfaces = [storedInterface.id];
    w.openInterface = await post('/api/dcim/interfaces/', { device: w.open.id, name: 'open0', type: '1000base-t', status: 'Active' });
    const ns = (await t().get('/api/ipam/namespaces/?name=Global').expect(200)).body.results[0];
    w.prefix = await post('/api/ipam/prefixes/', { prefix: '10.99.0.0/16', namespace: ns.id, status: 'Active', type: 'network' });
    w.hiddenPrefix = await post('/api/ipam/prefixes/', { prefix: '10.99.1.0/24', namespace: ns.id, status: 'Active', type: 'network' });
    w.ip = await post('/api/ipam/ip-addresses/', { address: '10.99.1.5/24', namespace: ns.id, status: 'Active' });
    w.hiddenAssignments = [(await post('/api/ipam/ip-address-to-interface/', { ip_address: w.ip.id, interface: w.hiddenInterface.id })).id];
    // A VM whose only interface is hidden, carrying a MAC address and the address.
    const kvm = await post('/api/virtualization/cluster-types/', { name: 'Leak KVM' });
    const cluster = await post('/api/virtualization/clusters/', { name: 'leak-cluster', cluster_type: kvm.id, location: w.site.id });
    w.vm = await post('/api/virtualization/virtual-machines/', { name: 'leak-vm', cluster: cluster.id, status: 'Active' });
    w.hiddenVmInterface = await post('/api/virtualization/interfaces/', { virtual_machine: w.vm.id, name: 'eth-hidden', status: 'Active', mac_address: '00:11:22:33:44:03' });
    w.vmIp = await post('/api/ipam/ip-addresses/', { address: '10.99.1.6/24', namespace: ns.id, status: 'Active' });
    await post('/api/ipam/ip-address-to-interface/', { ip_address: w.vmIp.id, vm_interface: w.hiddenVmInterface.id });
    // A software version whose only image file is hidden, mapped to the chassis.
    const platform = await post('/api/dcim/platforms/', { name: 'Leak OS' });
    w.version = await post('/api/dcim/software-versions/', { platform: platform.id, version: '1.0', status: 'Active' });
    w.hiddenFile = await post('/api/dcim/software-image-files/', { software_version: w.version.id, image_file_name: 'hidden.bin', status: 'Active' });
    await post('/api/dcim/device-types-to-software-image-files/', { device_type: w.chassis.id, software_image_file: w.hiddenFile.id });
    // A redundancy group whose association with a visible interface is hidden.
    w.group = await post('/api/dcim/interface-redundancy-groups/', { name: 'Leak group', protocol: 'vrrp', status: 'Active' });
    w.hiddenAssociation = await post('/api/dcim/interface-redundancy-group-associations/', { interface_redundancy_group: w.group.id, interface: w.openInterface.id, priority: 10 });
    // Links that are objects of their own (through models), hidden: a visible interface's address assignment, a visible image file's mapping.
    w.linkedIp = await post('/api/ipam/ip-addresses/', { address: '10.99.0.7/16', namespace: ns.id, status: 'Active', dns_name: 'leak-linked' });
    w.hiddenLink = await post('/api/ipam/ip-address-to-interface/', { ip_address: w.linkedIp.id, interface: w.openInterface.id });
    w.hiddenAssignments.push(w.hiddenLink.id);
    w.otherType = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Leak other' });
    w.openFile = await post('/api/dcim/software-image-files/', { software_version: w.version.id, image_file_name: 'open.bin', status: 'Active' });
    w.hiddenMapping = await post('/api/dcim/device-types-to-software-image-files/', { device_type: w.otherType.id, software_image_file: w.openFile.id });
    // A hidden VLAN (by VID) on a visible interface, and a cable of the hidden device.
    w.hiddenVlan = await post('/api/ipam/vlans/', { name: 'leak-vlan', vid: 3999, status: 'Active' });
    await t().patch(`/api/dcim/interfaces/${w.openInterface.id}/`, { mode: 'access', untagged_vlan: w.hiddenVlan.id }).expect(200);
    const far = await post('/api/dcim/interfaces/', { device: w.hiddenDevice.id, name: 'far0', type: '1000base-t', status: 'Active' });
    const near = await post('/api/dcim/interfaces/', { device: w.open.id, name: 'near0', type: '1000base-t', status: 'Active' });
    w.cable = await post('/api/dcim/cables/', { termination_a_type: 'dcim.interface', termination_a_id: near.id, termination_b_type: 'dcim.interface', termination_b_id: far.id, status: 'Connected' });

    const except = (list: string[]) => ({ id__n: list });
    tok = await t().userWith('filter-leaks', [
      {
        types: [
          'dcim.location', 'dcim.locationtype', 'dcim.rack', 'dcim.manufacturer', 'dcim.devicetype', 'dcim.moduletype', 'dcim.modulebay', 'dcim.platform', 'dcim.softwareversion',
          'dcim.interfaceredundancygroup', 'dcim.cable', 'ipam.namespace', 'ipam.ipaddress', 'virtualization.virtualmachine',
          'virtualization.cluster', 'extras.status', 'extras.role',
        ],
        actions: ['view'],
      },
      { types: ['dcim.device'], actions: ['view'], constraints: except([w.hiddenDevice.id]) },
      { types: ['dcim.module'], actions: ['view'], constraints: except([w.hiddenModule.id]) },
      { types: ['dcim.interface'], actions: ['view'], constraints: except([w.hiddenInterface.id, ...w.hiddenModuleInterfaces]) },
      { types: ['ipam.prefix'], actions: ['view'], constraints: except([w.hiddenPrefix.id]) },
      { types: ['ipam.ipaddresstointerface'], actions: ['view'], constraints: except(w.hiddenAssignments) },
      { types: ['ipam.vlan'], actions: ['view'], constraints: except([w.hiddenVlan.id]) },
      { types: ['virtualization.vminterface'], actions: ['view'], constraints: except([w.hiddenVmInterface.id]) },
      { types: ['dcim.softwareimagefile'], actions: ['view'], constraints: except([w.hiddenFile.id]) },
      { types: ['dcim.devicetypetosoftwareimagefile'], actions: ['view'], constraints: except([w.hiddenMapping.id]) },
      { types: ['dcim.interfaceredundancygroupassociation'], actions: ['view'], constraints: except([w.hiddenAssociation.id]) },
    ]);
  });

  /**
   * Each filter, and the object it would find through a hidden one: the administrator finds it
   * (the filter matches through the hidden object); the constrained user does not.
   */
  const cases: [string, (w: Obj) => string, (w: Obj) => string][] = [
    ['a device with a hidden module in its bay (has_modules)', () => '/api/dcim/devices/?has_modules=true', (w) => w.holder.id],
    ['a module in the bay of a hidden module (device)', (w) => `/api/dcim/modules/?device=${w.holder.id}`, (w) => w.nestedModule.id],
    ["a hidden module's interface (interfaces' device)", (w) => `/api/dcim/interfaces/?device=${w.holder.id}`, (w) => w.hiddenModuleInterface.id],
    ['a device by the MAC address of a hidden interface', () => '/api/dcim/devices/?mac_address=00:11:22:33:44:01', (w) => w.open.id],
    ['a module by the MAC address of a hidden interface', () => '/api/dcim/modules/?mac_address=00-11-22-33-44-02', (w) => w.storedModule.id],
    ['a VM by the MAC address of a hidden interface', () => '/api/virtualization/virtual-machines/?mac_address=00:11:22:33:44:03', (w) => w.vm.id],
    ['a VM by an address on a hidden interface', (w) => `/api/virtualization/virtual-machines/?ip_addresses=${w.vmIp.id}`, (w) => w.vm.id],
    ['a VM with addresses only on hidden interfaces (has_ip_addresses)', () => '/api/virtualization/virtual-machines/?has_ip_addresses=true', (w) => w.vm.id],
    ["an address on a VM's hidden interface (virtual_machine)", (w) => `/api/ipam/ip-addresses/?virtual_machine=${w.vm.id}`, (w) => w.vmIp.id],
    ["an address on a device's hidden interface (device)", (w) => `/api/ipam/ip-addresses/?device=${w.open.id}`, (w) => w.ip.id],
    ['an address whose only assignment is hidden (has_interface_assignments)', () => '/api/ipam/ip-addresses/?has_interface_assignments=true', (w) => w.ip.id],
    ['a software version through a hidden image file (device_types)', (w) => `/api/dcim/software-versions/?device_types=${w.chassis.id}`, (w) => w.version.id],
    ['a redundancy group through a hidden association (interfaces)', (w) => `/api/dcim/interface-redundancy-groups/?interfaces=${w.openInterface.id}`, (w) => w.group.id],
    ['an interface by the VID of a hidden VLAN (vlan)', () => '/api/dcim/interfaces/?vlan=3999', (w) => w.openInterface.id],
    ["a cable of a hidden device in a rack (rack)", (w) => `/api/dcim/cables/?rack=${w.rack.id}`, (w) => w.cable.id],
    ['an address in a hidden prefix (parent by CIDR)', () => '/api/ipam/ip-addresses/?parent=10.99.1.0/24', (w) => w.ip.id],
    ['an interface whose only assignment is hidden (has_ip_addresses)', () => '/api/dcim/interfaces/?has_ip_addresses=true', (w) => w.openInterface.id],
    ['an interface through a hidden assignment (ip_addresses)', (w) => `/api/dcim/interfaces/?ip_addresses=${w.linkedIp.id}`, (w) => w.openInterface.id],
    ["an interface through a hidden assignment (an address's attribute)", () => '/api/dcim/interfaces/?ip_addresses__dns_name=leak-linked', (w) => w.openInterface.id],
    ['an address through a hidden assignment (interfaces)', (w) => `/api/ipam/ip-addresses/?interfaces=${w.openInterface.id}`, (w) => w.linkedIp.id],
    ["an address through a hidden assignment (an interface's attribute)", () => '/api/ipam/ip-addresses/?interfaces__name=open0', (w) => w.linkedIp.id],
    ['a device type through a hidden image file mapping (has_software_image_files)', () => '/api/dcim/device-types/?has_software_image_files=true', (w) => w.otherType.id],
    ['a device type through a hidden image file mapping (software_image_files)', (w) => `/api/dcim/device-types/?software_image_files=${w.openFile.id}`, (w) => w.otherType.id],
    ['an image file through a hidden mapping (device_types)', (w) => `/api/dcim/software-image-files/?device_types=${w.otherType.id}`, (w) => w.openFile.id],
  ];

  it.each(cases)('does not find %s', async (_what, path, expected) => {
    const p = path(w);
    expect({ p, admin: (await ids(p)).includes(expected(w)) }).toEqual({ p, admin: true });
    expect({ p, user: (await ids(p, tok)).includes(expected(w)) }).toEqual({ p, user: false });
  });

  it('sees the device with only a hidden module in its bay as without modules', async () => {
    expect(await ids('/api/dcim/devices/?has_modules=false', tok)).toContain(w.holder.id);
    expect(await ids('/api/virtualization/virtual-machines/?has_ip_addresses=false', tok)).toContain(w.vm.id);
  });
});
