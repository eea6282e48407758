import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * A device's primary IPs may sit on the interfaces of the modules installed in it, at any depth,
 * or be the NAT outside address of one that does (the reference's Device.clean over
 * all_interfaces); an address of another device's module is refused, and an assignment going
 * from a module's interface releases the device's primary IP as one from its own would.
 */
eachDatabase('primary IPs on module interfaces', (t) => {
  const post = async (path: string, body: object) => {
    const res = await t().post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const get = async (path: string) => (await t().get(path).expect(200)).body;

  it('takes a primary IP from an interface of a module in the device, and refuses one of another device', async () => {
    const type = await post('/api/dcim/location-types/', { name: 'PIP site', content_types: ['dcim.device', 'dcim.module'] });
    const site = await post('/api/dcim/locations/', { name: 'PIP 1', location_type: type.id, status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'PIP maker' });
    const role = await post('/api/extras/roles/', { name: 'PIP role', content_types: ['dcim.device'] });
    const chassis = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'PIP chassis' });
    const card = await post('/api/dcim/module-types/', { manufacturer: maker.id, model: 'PIP card' });
    await post('/api/dcim/interface-templates/', { module_type: card.id, name: 'et-{module}', type: '10gbase-x-sfpp' });
    await post('/api/dcim/module-bay-templates/', { module_type: card.id, name: 'Sub', position: '9' });
    const device = (name: string) => post('/api/dcim/devices/', { name, device_type: chassis.id, role: role.id, status: 'Active', location: site.id });
    const router = await device('pip-r1');
    const other = await device('pip-r2');
    const install = async (holder: Obj, position: string) => {
      const bay = await post('/api/dcim/module-bays/', { [holder.device_type ? 'parent_device' : 'parent_module']: holder.id, name: `Bay ${position}`, position });
      return post('/api/dcim/modules/', { module_type: card.id, parent_module_bay: bay.id, status: 'Active' });
    };
    const interfaceOf = async (module: Obj) => (await get(`/api/dcim/interfaces/?module=${module.id}`)).results[0];
    const top = await install(router, '1');
    const [nestedBay] = (await get(`/api/dcim/module-bays/?parent_module=${top.id}`)).results;
    const nested = await post('/api/dcim/modules/', { module_type: card.id, parent_module_bay: nestedBay.id, status: 'Active' });
    const foreign = await install(other, '1');
    await post('/api/ipam/prefixes/', { prefix: '192.0.2.0/24', status: 'Active', namespace: 'Global' });
    const [onTop, onNested, onForeign, inside] = await post(
      '/api/ipam/ip-addresses/',
      ['192.0.2.1/24', '192.0.2.2/24', '192.0.2.3/24', '192.0.2.4/24'].map((address) => ({ address, status: 'Active', namespace: 'Global' })),
    );
    const outside = await post('/api/ipam/ip-addresses/', { address: '192.0.2.5/24', status: 'Active', namespace: 'Global', nat_inside: inside.id });
    const [assignment] = await post('/api/ipam/ip-address-to-interface/', [
      { ip_address: onTop.id, interface: (await interfaceOf(top)).id },
      { ip_address: onNested.id, interface: (await interfaceOf(nested)).id },
      { ip_address: onForeign.id, interface: (await interfaceOf(foreign)).id },
      { ip_address: inside.id, interface: (await interfaceOf(nested)).id },
    ]);
    const url = `/api/dcim/devices/${router.id}/`;
    expect((await t().patch(url, { primary_ip4: onTop.id }).expect(200)).body.primary_ip4).toMatchObject({ id: onTop.id });
    expect((await t().patch(url, { primary_ip4: onNested.id }).expect(200)).body.primary_ip4).toMatchObject({ id: onNested.id });
    expect((await t().patch(url, { primary_ip4: outside.id }).expect(200)).body.primary_ip4).toMatchObject({ id: outside.id });
    expect((await t().patch(url, { primary_ip4: onForeign.id }).expect(400)).body).toEqual({ primary_ip4: ['The specified IP address (192.0.2.3/24) is not assigned to this device.'] });
    // The address's last assignment to the device's interfaces goes: so does the primary IP.
    await t().patch(url, { primary_ip4: onTop.id }).expect(200);
    await t().del(`/api/ipam/ip-address-to-interface/${assignment.id}/`).expect(204);
    expect((await get(url)).primary_ip4).toBeNull();
  });
});
