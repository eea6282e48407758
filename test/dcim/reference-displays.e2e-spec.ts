import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * `display` as the reference's str() and display properties give it: a module in a module's bay
 * is "<type> installed in <the parent module's display>" at any depth, a device type's image
 * file mapping is "<device type> - <image file>" (the type's model, the file's "<version> -
 * <name>"). What lies past a hidden object lends no name.
 */
eachDatabase('displays as the reference gives them', (t) => {
  const post = async (path: string, body: object) => {
    const res = await t().post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const get = async (path: string, token?: string) => (await t().get(path, token).expect(200)).body;
  const w: Obj = {};

  beforeAll(async () => {
    const type = await post('/api/dcim/location-types/', { name: 'RD site', content_types: ['dcim.device', 'dcim.module'] });
    w.site = await post('/api/dcim/locations/', { name: 'RD-1', location_type: type.id, status: 'Active' });
    w.maker = await post('/api/dcim/manufacturers/', { name: 'RD maker' });
    const role = await post('/api/extras/roles/', { name: 'RD role', content_types: ['dcim.device'] });
    w.chassis = await post('/api/dcim/device-types/', { manufacturer: w.maker.id, model: 'RD chassis' });
    w.card = await post('/api/dcim/module-types/', { manufacturer: w.maker.id, model: 'RD card' });
    await post('/api/dcim/module-bay-templates/', { module_type: w.card.id, name: 'Sub', position: 's' });
    w.device = await post('/api/dcim/devices/', { name: 'rd-r1', device_type: w.chassis.id, role: role.id, status: 'Active', location: w.site.id });
    const bay = await post('/api/dcim/module-bays/', { parent_device: w.device.id, name: 'Slot 1', position: '1' });
    const below = async (m: Obj, serial: string) => {
      const [sub] = (await get(`/api/dcim/module-bays/?parent_module=${m.id}`)).results;
      return post('/api/dcim/modules/', { module_type: w.card.id, parent_module_bay: sub.id, status: 'Active', serial });
    };
    w.top = await post('/api/dcim/modules/', { module_type: w.card.id, parent_module_bay: bay.id, status: 'Active', serial: 'top' });
    w.mid = await below(w.top, 'mid');
    w.low = await below(w.mid, 'low');
    w.stored = await post('/api/dcim/modules/', { module_type: w.card.id, location: w.site.id, status: 'Active', serial: 'S1', asset_tag: 'A1' });
    w.inStored = await below(w.stored, 'x');
  });

  it('displays a module in a module bay through its parents, as the reference does', async () => {
    const expected: [string, string][] = [
      [w.top.id, 'RD card installed in rd-r1'],
      [w.mid.id, 'RD card installed in RD card installed in rd-r1'],
      [w.low.id, 'RD card installed in RD card installed in RD card installed in rd-r1'],
      [w.stored.id, 'RD card (Serial: S1) (Asset Tag: A1) at location RD-1'],
      [w.inStored.id, 'RD card installed in RD card (Serial: S1) (Asset Tag: A1) at location RD-1'],
    ];
    for (const [id, display] of expected) expect((await get(`/api/dcim/modules/${id}/`)).display).toBe(display);
    // A list says the same as the details.
    const listed = new Map(((await get(`/api/dcim/modules/?module_type=${w.card.id}&limit=50`)).results as Obj[]).map((m) => [m.id, m.display]));
    for (const [id, display] of expected) expect(listed.get(id)).toBe(display);
    // Nested in another object, too.
    expect((await get(`/api/dcim/module-bays/?parent_module=${w.low.id}&depth=1`)).results[0].parent_module.display).toBe(expected[2][1]);
  });

  it('names no hidden device or module in a module display', async () => {
    const tok = await t().userWith('rd-viewer', [
      { types: ['dcim.moduletype', 'dcim.modulebay', 'dcim.location'], actions: ['view'] },
      { types: ['dcim.module'], actions: ['view'], constraints: { serial__n: 'mid' } },
    ]);
    for (const path of [`/api/dcim/modules/${w.top.id}/`, `/api/dcim/modules/${w.low.id}/`, `/api/dcim/modules/?serial=low`, `/api/dcim/modules/?serial=top`]) {
      expect(JSON.stringify(await get(path, tok))).not.toContain('rd-r1');
    }
    expect((await get(`/api/dcim/modules/${w.inStored.id}/`, tok)).display).toBe('RD card installed in RD card (Serial: S1) (Asset Tag: A1) at location RD-1');
  });

  it("displays a device type's image file mapping as the reference's str()", async () => {
    const platform = await post('/api/dcim/platforms/', { name: 'RD OS' });
    const version = await post('/api/dcim/software-versions/', { platform: platform.id, version: '2.1', status: 'Active' });
    const aliased = await post('/api/dcim/software-versions/', { platform: platform.id, version: '2.2', alias: 'Two-Two', status: 'Active' });
    const file = await post('/api/dcim/software-image-files/', { software_version: version.id, image_file_name: 'rd-2.1.bin', status: 'Active' });
    const other = await post('/api/dcim/software-image-files/', { software_version: aliased.id, image_file_name: 'rd-2.2.bin', status: 'Active' });
    const m1 = await post('/api/dcim/device-types-to-software-image-files/', { device_type: w.chassis.id, software_image_file: file.id });
    const m2 = await post('/api/dcim/device-types-to-software-image-files/', { device_type: w.chassis.id, software_image_file: other.id });
    expect(m1.display).toBe('RD chassis - RD OS - 2.1 - rd-2.1.bin');
    expect(m2.display).toBe('RD chassis - Two-Two - rd-2.2.bin');
    const listed = ((await get(`/api/dcim/device-types-to-software-image-files/?device_type=${w.chassis.id}`)).results as Obj[]).map((m) => m.display).sort();
    expect(listed).toEqual(['RD chassis - RD OS - 2.1 - rd-2.1.bin', 'RD chassis - Two-Two - rd-2.2.bin']);
  });
});
