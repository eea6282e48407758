import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Device families, device types and their component templates as Nautobot 2.4 serves them: the
 * reference's rules and messages (unique model per manufacturer, names unique per device type,
 * front ports within their rear port's positions, templates of one device type only, device
 * bays on parent types only, child types 0U), its display, filters and cascades.
 */
eachDatabase('device types and component templates', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refused = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const names = async (path: string) => (await t().get(path).expect(200)).body.results.map((o: { name?: string; model?: string }) => o.name ?? o.model).sort();

  it('shows a device type as its maker and model, with the reference defaults, and keeps a model unique per maker', async () => {
    const juniper = await post('/api/dcim/manufacturers/', { name: 'Juniper' });
    const family = await post('/api/dcim/device-families/', { name: 'EX Series' });
    const ex = await post('/api/dcim/device-types/', { manufacturer: juniper.id, model: 'EX4300-48T', device_family: family.id });
    expect(ex).toMatchObject({ display: 'Juniper EX4300-48T', model: 'EX4300-48T', u_height: 1, is_full_depth: true, subdevice_role: null, part_number: '', comments: '', device_count: 0 });
    expect(ex).not.toHaveProperty('front_image');
    expect((await t().get(`/api/dcim/device-families/${family.id}/`).expect(200)).body).toMatchObject({ display: 'EX Series', device_type_count: 1 });
    expect((await t().get(`/api/dcim/manufacturers/${juniper.id}/`).expect(200)).body.device_type_count).toBe(1);
    expect(await refused('/api/dcim/device-types/', { manufacturer: juniper.id, model: 'EX4300-48T' })).toEqual({ non_field_errors: ['The fields manufacturer, model must make a unique set.'] });
    const dell = await post('/api/dcim/manufacturers/', { name: 'Dell' });
    await post('/api/dcim/device-types/', { manufacturer: dell.id, model: 'EX4300-48T', u_height: 0 });
    expect(await refused('/api/dcim/device-types/', { manufacturer: dell.id, model: 'R640', u_height: -1 })).toEqual({ u_height: ['Ensure this value is greater than or equal to 0.'] });
    expect(await refused('/api/dcim/device-types/', { manufacturer: dell.id, model: 'Blade', subdevice_role: 'child' })).toEqual({ u_height: ['Child device types must be 0U.'] });
    expect(await refused('/api/dcim/device-types/', { manufacturer: dell.id, model: 'Blade', subdevice_role: 'sibling' })).toEqual({ subdevice_role: ['sibling is not a valid choice.'] });
    const blade = await post('/api/dcim/device-types/', { manufacturer: dell.id, model: 'Blade', subdevice_role: 'child', u_height: 0 });
    expect(blade.subdevice_role).toEqual({ value: 'child', label: 'Child' });
    // Deleting what device types point at is refused while they do.
    expect((await t().del(`/api/dcim/manufacturers/${juniper.id}/`).expect(409)).body.detail).toMatch(/^Unable to delete object\. 1 dependent objects were found: /);
    await t().del(`/api/dcim/device-families/${family.id}/`).expect(409);
  });

  it('filters device types by maker, family and template presence as the reference does', async () => {
    const cisco = await post('/api/dcim/manufacturers/', { name: 'Cisco' });
    const arista = await post('/api/dcim/manufacturers/', { name: 'Arista' });
    const family = await post('/api/dcim/device-families/', { name: 'Catalyst 9300' });
    const c9300 = await post('/api/dcim/device-types/', { manufacturer: cisco.id, model: 'C9300-48P', device_family: family.id, part_number: 'C9300-48P-A' });
    const chassis = await post('/api/dcim/device-types/', { manufacturer: arista.id, model: 'DCS-7504', subdevice_role: 'parent' });
    await post('/api/dcim/interface-templates/', { device_type: c9300.id, name: 'GigabitEthernet1/0/1', type: '1000base-t' });
    await post('/api/dcim/console-port-templates/', { device_type: c9300.id, name: 'con0', type: 'rj-45' });
    await post('/api/dcim/device-bay-templates/', { device_type: chassis.id, name: 'Slot 1' });
    expect(await names('/api/dcim/device-types/?manufacturer=Cisco')).toEqual(['C9300-48P']);
    expect(await names(`/api/dcim/device-types/?manufacturer=${arista.id}`)).toEqual(['DCS-7504']);
    expect(await names('/api/dcim/device-types/?device_family=Catalyst 9300')).toEqual(['C9300-48P']);
    expect(await names('/api/dcim/device-types/?manufacturer=Cisco&manufacturer=Arista&interfaces=true')).toEqual(['C9300-48P']);
    expect(await names('/api/dcim/device-types/?manufacturer=Cisco&manufacturer=Arista&console_ports=false')).toEqual(['DCS-7504']);
    expect(await names('/api/dcim/device-types/?manufacturer=Cisco&manufacturer=Arista&has_device_bay_templates=true')).toEqual(['DCS-7504']);
    expect(await names('/api/dcim/device-types/?manufacturer=Cisco&manufacturer=Arista&device_bays=true')).toEqual(['DCS-7504']);
    expect(await names('/api/dcim/device-types/?interface_templates=GigabitEthernet1/0/1')).toEqual(['C9300-48P']);
    expect(await names('/api/dcim/device-types/?q=catalyst')).toEqual(['C9300-48P']);
    expect(await names('/api/dcim/device-types/?q=arista')).toEqual(['DCS-7504']);
    expect(await names('/api/dcim/device-families/?device_types=C9300-48P')).toEqual(['Catalyst 9300']);
    expect(await names('/api/dcim/device-families/?has_device_types=true&name=Catalyst 9300')).toEqual(['Catalyst 9300']);
    // A template's device type is named by its model, as the reference's filter takes it.
    expect(await names('/api/dcim/interface-templates/?device_type=C9300-48P')).toEqual(['GigabitEthernet1/0/1']);
    expect((await t().get('/api/dcim/interface-templates/?device_type=Nothing').expect(400)).body).toEqual({ device_type: ['Select a valid choice. Nothing is not one of the available choices.'] });
  });

  it('keeps template names unique per device type, deletes templates with their device type, and shows them as the reference does', async () => {
    const maker = await post('/api/dcim/manufacturers/', { name: 'Opengear' });
    const cm = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'CM7148' });
    const other = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'CM7196' });
    const port = await post('/api/dcim/console-server-port-templates/', { device_type: cm.id, name: 'Port 1', label: 'P1', type: 'rj-45' });
    expect(port).toMatchObject({ display: 'Port 1 (P1)', label: 'P1', description: '', type: { value: 'rj-45', label: 'RJ-45' } });
    expect(port).not.toHaveProperty('notes_url');
    expect(await refused('/api/dcim/console-server-port-templates/', { device_type: cm.id, name: 'Port 1' })).toEqual({ non_field_errors: ['The fields device_type, name must make a unique set.'] });
    await post('/api/dcim/console-server-port-templates/', { device_type: other.id, name: 'Port 1' });
    const blank = await post('/api/dcim/console-port-templates/', { device_type: cm.id, name: 'Console', type: null });
    expect(blank.type).toBeNull();
    expect(await refused('/api/dcim/interface-templates/', { device_type: cm.id, name: 'eth0' })).toEqual({ type: ['This field is required.'] });
    expect(await refused('/api/dcim/interface-templates/', { device_type: cm.id, name: 'eth0', type: 'token-ring' })).toEqual({ type: ['token-ring is not a valid choice.'] });
    // A template belongs to a device type or a module type (the reference's model message).
    expect(await refused('/api/dcim/interface-templates/', { name: 'eth0', type: 'virtual' })).toEqual({ __all__: ['Either device_type or module_type must be set'] });
    const slot = await post('/api/dcim/module-bay-templates/', { device_type: cm.id, name: 'Slot A', position: 'A' });
    expect(slot).toMatchObject({ display: 'CM7148 (Slot A)', position: 'A', requires_first_party_modules: false });
    await t().del(`/api/dcim/device-types/${cm.id}/`).expect(204);
    await t().get(`/api/dcim/console-server-port-templates/${port.id}/`).expect(404);
    expect(await names(`/api/dcim/console-server-port-templates/?device_type=${other.id}`)).toEqual(['Port 1']);
  });

  it('checks interface speed and duplex against the interface type', async () => {
    const maker = await post('/api/dcim/manufacturers/', { name: 'Edgecore' });
    const dt = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'AS7726' });
    const eth = await post('/api/dcim/interface-templates/', { device_type: dt.id, name: 'eth1', type: '10gbase-t', mgmt_only: true, speed: 10000000, duplex: 'full' });
    expect(eth).toMatchObject({ type: { value: '10gbase-t', label: '10GBASE-T (10GE)' }, mgmt_only: true, speed: 10000000, duplex: 'full' });
    expect(await refused('/api/dcim/interface-templates/', { device_type: dt.id, name: 'lag1', type: 'lag', speed: 1000 })).toEqual({ speed: ['Speed is not applicable to this interface type.'] });
    expect(await refused('/api/dcim/interface-templates/', { device_type: dt.id, name: 'wlan0', type: 'ieee802.11ax', duplex: 'half' })).toEqual({ duplex: ['Duplex is not applicable to this interface type.'] });
    expect(await refused('/api/dcim/interface-templates/', { device_type: dt.id, name: 'sfp1', type: '10gbase-x-sfpp', duplex: 'full' })).toEqual({ duplex: ['Duplex is only applicable to copper twisted-pair interfaces.'] });
    expect(await refused('/api/dcim/interface-templates/', { device_type: dt.id, name: 'eth2', type: '10gbase-t', duplex: 'simplex' })).toEqual({ duplex: ['"simplex" is not a valid choice.'] });
  });

  it('keeps front ports within their rear port positions, once per position, on the same device type', async () => {
    const maker = await post('/api/dcim/manufacturers/', { name: 'Panduit' });
    const panel = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Patch panel 24' });
    const other = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Patch panel 48' });
    const rear = await post('/api/dcim/rear-port-templates/', { device_type: panel.id, name: 'Rear 1', type: 'mpo', positions: 2 });
    expect(rear).toMatchObject({ positions: 2, type: { value: 'mpo', label: 'MPO' } });
    expect(await refused('/api/dcim/rear-port-templates/', { device_type: panel.id, name: 'Rear 2', type: 'mpo', positions: 1025 })).toEqual({ positions: ['Ensure this value is less than or equal to 1024.'] });
    expect(await refused('/api/dcim/rear-port-templates/', { device_type: panel.id, name: 'Rear 2', type: 'mpo', positions: 0 })).toEqual({ positions: ['Ensure this value is greater than or equal to 1.'] });
    const front = await post('/api/dcim/front-port-templates/', { device_type: panel.id, name: 'Front 1', type: 'lc', rear_port_template: rear.id });
    expect(front).toMatchObject({ rear_port_position: 1, rear_port_template: { id: rear.id } });
    expect(await refused('/api/dcim/front-port-templates/', { device_type: panel.id, name: 'Front 2', type: 'lc', rear_port_template: rear.id, rear_port_position: 1 })).toEqual({
      non_field_errors: ['The fields rear_port_template, rear_port_position must make a unique set.'],
    });
    expect(await refused('/api/dcim/front-port-templates/', { device_type: panel.id, name: 'Front 3', type: 'lc', rear_port_template: rear.id, rear_port_position: 3 })).toEqual({
      __all__: ['Invalid rear port position (3); rear port Rear 1 has only 2 positions'],
    });
    expect(await refused('/api/dcim/front-port-templates/', { device_type: other.id, name: 'Front 1', type: 'lc', rear_port_template: rear.id, rear_port_position: 2 })).toEqual({
      __all__: ['Rear port (Rear 1) must belong to the same device type'],
    });
    await post('/api/dcim/front-port-templates/', { device_type: panel.id, name: 'Front 2', type: 'lc', rear_port_template: rear.id, rear_port_position: 2 });
    expect(await names(`/api/dcim/rear-port-templates/?has_front_port_templates=true&device_type=${panel.id}`)).toEqual(['Rear 1']);
    // A rear port takes its front ports along when it goes.
    await t().del(`/api/dcim/rear-port-templates/${rear.id}/`).expect(204);
    await t().get(`/api/dcim/front-port-templates/${front.id}/`).expect(404);
  });

  it('checks power draws, feeds outlets from a power port of the same device type, and keeps device bays on parent types', async () => {
    const maker = await post('/api/dcim/manufacturers/', { name: 'APC' });
    const pdu = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'AP8941' });
    const other = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'AP8959' });
    const inlet = await post('/api/dcim/power-port-templates/', { device_type: pdu.id, name: 'Inlet', label: 'IN', type: 'iec-60309-3p-e-6h', maximum_draw: 3600, allocated_draw: 1800 });
    expect(inlet).toMatchObject({ maximum_draw: 3600, allocated_draw: 1800, power_factor: '0.95', type: { value: 'iec-60309-3p-e-6h' } });
    expect(await refused('/api/dcim/power-port-templates/', { device_type: pdu.id, name: 'PSU', maximum_draw: 100, allocated_draw: 200 })).toEqual({ allocated_draw: ['Allocated draw cannot exceed the maximum draw (100W).'] });
    expect(await refused('/api/dcim/power-port-templates/', { device_type: pdu.id, name: 'PSU', maximum_draw: 0 })).toEqual({ maximum_draw: ['Ensure this value is greater than or equal to 1.'] });
    const outlet = await post('/api/dcim/power-outlet-templates/', { device_type: pdu.id, name: 'Outlet 1', type: 'iec-60320-c13', power_port_template: inlet.id, feed_leg: 'B' });
    expect(outlet).toMatchObject({ feed_leg: { value: 'B', label: 'B' }, power_port_template: { id: inlet.id } });
    expect(await refused('/api/dcim/power-outlet-templates/', { device_type: pdu.id, name: 'Outlet 2', feed_leg: 'D' })).toEqual({ feed_leg: ['D is not a valid choice.'] });
    expect(await refused('/api/dcim/power-outlet-templates/', { device_type: other.id, name: 'Outlet 1', power_port_template: inlet.id })).toEqual({
      __all__: ['Parent power port (Inlet (IN)) must belong to the same device type'],
    });
    expect(await names(`/api/dcim/power-port-templates/?has_power_outlet_templates=true&device_type=${pdu.id}`)).toEqual(['Inlet']);
    // The power port going leaves its outlets unfed.
    await t().del(`/api/dcim/power-port-templates/${inlet.id}/`).expect(204);
    expect((await t().get(`/api/dcim/power-outlet-templates/${outlet.id}/`).expect(200)).body.power_port_template).toBeNull();

    expect(await refused('/api/dcim/device-bay-templates/', { device_type: pdu.id, name: 'Bay 1' })).toEqual({ __all__: ['Subdevice role of device type (AP8941) must be set to "parent" to allow device bays.'] });
    const chassis = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Chassis', subdevice_role: 'parent' });
    await post('/api/dcim/device-bay-templates/', { device_type: chassis.id, name: 'Bay 1' });
    expect((await t().patch(`/api/dcim/device-types/${chassis.id}/`, { subdevice_role: '' }).expect(400)).body).toEqual({
      subdevice_role: ['Must delete all device bay templates associated with this device before declassifying it as a parent device.'],
    });
  });
});
