import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * A refused write names a related object as the reference does where the requester may view it,
 * and never names one hidden from them: a circuit termination at a hidden location already
 * cabled, a module bay or module type of a hidden module family, an image file of a hidden
 * software version.
 */
eachDatabase('messages naming only what the requester may view', (t) => {
  const post = async (path: string, body: object) => {
    const res = await t().post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const w: Obj = {};
  let tok = '';
  const SECRETS = ['Secret-Site', 'Secret family', 'SecretOS', '6.6.6', 'hn-secret', 'Secret-Bay'];

  beforeAll(async () => {
    const type = await post('/api/dcim/location-types/', { name: 'HN site', content_types: ['dcim.device', 'dcim.module', 'circuits.circuittermination'] });
    w.hiddenSite = await post('/api/dcim/locations/', { name: 'Secret-Site', location_type: type.id, status: 'Active' });
    w.site = await post('/api/dcim/locations/', { name: 'Open-Site', location_type: type.id, status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'HN maker' });
    const role = await post('/api/extras/roles/', { name: 'HN role', content_types: ['dcim.device'] });
    w.chassis = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'HN chassis' });
    w.other = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'HN other' });
    w.device = await post('/api/dcim/devices/', { name: 'hn-r1', device_type: w.chassis.id, role: role.id, status: 'Active', location: w.site.id });
    const iface = (name: string) => post('/api/dcim/interfaces/', { device: w.device.id, name, type: '1000base-t', status: 'Active' });
    [w.ge0, w.ge1] = [await iface('ge-0'), await iface('ge-1')];
    // A circuit termination at the hidden site, cabled.
    const provider = await post('/api/circuits/providers/', { name: 'HN telco' });
    const ctype = await post('/api/circuits/circuit-types/', { name: 'HN metro' });
    const circuit = await post('/api/circuits/circuits/', { cid: 'HN-1', provider: provider.id, circuit_type: ctype.id, status: 'Active' });
    w.term = await post('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', location: w.hiddenSite.id });
    w.cable = await post('/api/dcim/cables/', { termination_a_type: 'dcim.interface', termination_a_id: w.ge0.id, termination_b_type: 'circuits.circuittermination', termination_b_id: w.term.id, status: 'Connected' });
    // A module bay of a hidden family, and a module type of another (visible) family.
    w.secretFamily = await post('/api/dcim/module-families/', { name: 'Secret family' });
    w.family = await post('/api/dcim/module-families/', { name: 'Open family' });
    w.bay = await post('/api/dcim/module-bays/', { parent_device: w.device.id, name: 'Slot 1', position: '1', module_family: w.secretFamily.id });
    w.card = await post('/api/dcim/module-types/', { manufacturer: maker.id, model: 'HN card', module_family: w.family.id });
    // An image file of a hidden version, valid for no device type.
    const platform = await post('/api/dcim/platforms/', { name: 'SecretOS' });
    const version = await post('/api/dcim/software-versions/', { platform: platform.id, version: '6.6.6', status: 'Active' });
    w.file = await post('/api/dcim/software-image-files/', { software_version: version.id, image_file_name: 'hn.bin', status: 'Active' });
    // A LAG interface of a hidden device; a child device in a hidden bay of a hidden parent.
    w.hiddenDevice = await post('/api/dcim/devices/', { name: 'hn-secret-box', device_type: w.chassis.id, role: role.id, status: 'Active', location: w.site.id });
    w.lag = await post('/api/dcim/interfaces/', { device: w.hiddenDevice.id, name: 'bond0', type: 'lag', status: 'Active' });
    const parentType = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'HN blade chassis', subdevice_role: 'parent' });
    const childType = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'HN blade', u_height: 0, subdevice_role: 'child' });
    const hiddenParent = await post('/api/dcim/devices/', { name: 'hn-secret-parent', device_type: parentType.id, role: role.id, status: 'Active', location: w.site.id });
    w.openParent = await post('/api/dcim/devices/', { name: 'hn-open-parent', device_type: parentType.id, role: role.id, status: 'Active', location: w.site.id });
    w.blade = await post('/api/dcim/devices/', { name: 'hn-blade', device_type: childType.id, role: role.id, status: 'Active', location: w.site.id });
    await post('/api/dcim/device-bays/', { device: hiddenParent.id, name: 'Secret-Bay', installed_device: w.blade.id });
    w.secretBox = [w.hiddenDevice.id, hiddenParent.id];
    tok = await t().userWith('hidden-names', [
      {
        types: ['dcim.locationtype', 'dcim.manufacturer', 'dcim.devicetype', 'dcim.interface', 'dcim.modulebay', 'dcim.moduletype', 'dcim.softwareimagefile', 'circuits.circuit', 'circuits.circuittermination', 'extras.status', 'extras.role', 'dcim.cable'],
        actions: ['view'],
      },
      { types: ['dcim.cable', 'dcim.module'], actions: ['view', 'add', 'change'] },
      { types: ['dcim.device'], actions: ['view', 'add', 'change'], constraints: { id__n: w.secretBox } },
      { types: ['dcim.interface', 'dcim.devicebay'], actions: ['add'] },
      { types: ['dcim.devicebay'], actions: ['view'], constraints: { name__n: 'Secret-Bay' } },
      { types: ['dcim.location'], actions: ['view'], constraints: { name: 'Open-Site' } },
      { types: ['dcim.modulefamily'], actions: ['view'], constraints: { name: 'Open family' } },
    ]);
  });

  const refused = async (path: string, body: object, token?: string) => (await t().post(path, body, token).expect(400)).body;
  const clean = (body: unknown) => {
    const text = JSON.stringify(body);
    for (const s of SECRETS) expect({ text, leaked: text.includes(s) }).toEqual({ text, leaked: false });
  };

  it("names a cabled circuit termination by its location only where the requester may view it", async () => {
    const cable = { termination_a_type: 'dcim.interface', termination_a_id: w.ge1.id, termination_b_type: 'circuits.circuittermination', termination_b_id: w.term.id, status: 'Connected' };
    expect(await refused('/api/dcim/cables/', cable)).toEqual({ __all__: [`Termination A: Secret-Site already has a cable attached (#${w.cable.id})`] });
    const body = await refused('/api/dcim/cables/', cable, tok);
    expect(body).toEqual({ __all__: [`Termination A already has a cable attached (#${w.cable.id})`] });
    clean(body);
  });

  it('names a module family only where the requester may view it', async () => {
    const module = { module_type: w.card.id, parent_module_bay: w.bay.id, status: 'Active' };
    expect(await refused('/api/dcim/modules/', module)).toEqual({
      module_type: ['The selected module bay requires a module type in the family Secret family, but the selected module type is in the family Open family.'],
    });
    const body = await refused('/api/dcim/modules/', module, tok);
    expect(body).toEqual({ module_type: ['The selected module bay requires a module type in a family you may not view, but the selected module type is in the family Open family.'] });
    clean(body);
  });

  it("names an image file's version only where the requester may view it, and the device type by its model", async () => {
    // A device takes the image files it is given (as the reference); its device type may not then
    // change to one the files are not valid for.
    const device = (await t().post('/api/dcim/devices/', { name: 'hn-r2', device_type: w.chassis.id, role: w.device.role.id, status: 'Active', location: w.site.id, software_image_files: [w.file.id] }).expect(201)).body;
    const change = async (token?: string) => (await t().patch(`/api/dcim/devices/${device.id}/`, { device_type: w.other.id }, token).expect(400)).body;
    expect(await change()).toEqual({
      software_image_files: ["Software image file SecretOS - 6.6.6 - hn.bin for version 'SecretOS - 6.6.6' is not valid for device type HN other."],
    });
    const body = await change(tok);
    expect(body).toEqual({ software_image_files: ['Software image file hn.bin is not valid for device type HN other.'] });
    clean(body);
  });

  it("names a LAG interface's device only where the requester may view it", async () => {
    const iface = { device: w.device.id, name: 'ge-9', type: '1000base-t', status: 'Active', lag: w.lag.id };
    expect(await refused('/api/dcim/interfaces/', iface)).toEqual({ lag: ['The selected LAG interface (bond0) belongs to a different device (hn-secret-box).'] });
    const body = await refused('/api/dcim/interfaces/', iface, tok);
    expect(body).toEqual({ lag: ['The selected LAG interface (bond0) belongs to a different device (a device you may not view).'] });
    clean(body);
  });

  it('names the bay a device is installed in only where the requester may view it', async () => {
    const bay = { device: w.openParent.id, name: 'Bay 2', installed_device: w.blade.id };
    expect(await refused('/api/dcim/device-bays/', bay)).toEqual({ installed_device: ['Cannot install the specified device; device is already installed in Secret-Bay'] });
    const body = await refused('/api/dcim/device-bays/', bay, tok);
    expect(body).toEqual({ installed_device: ['Cannot install the specified device; device is already installed in a device bay you may not view'] });
    clean(body);
  });
});
