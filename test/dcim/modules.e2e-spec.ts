import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * Modules as Nautobot 2.4 serves them: module families and types, templates on a device type or
 * a module type (exactly one), modules installed in a device's or a module's bay or kept in a
 * location, their components made from the module type's templates in the same transaction
 * with `{module}` names filled in, and a device's component filters reaching its modules'.
 */
eachDatabase('modules', (t) => {
  const post = async (path: string, body: object) => {
    const res = await t().post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const list = async (path: string) => (await t().get(path).expect(200)).body;
  const names = async (path: string) => (await list(path)).results.map((r: Obj) => r.name).sort();
  let site: Obj;
  let depot: Obj;
  let maker: Obj;
  let other: Obj;
  let role: Obj;
  let chassis: Obj;
  let family: Obj;
  let lineCard: Obj;
  let optic: Obj;
  let router: Obj;

  beforeAll(async () => {
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.device', 'dcim.module'] });
    const roomType = await post('/api/dcim/location-types/', { name: 'Room', content_types: ['dcim.device'] });
    site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, status: 'Active' });
    depot = await post('/api/dcim/locations/', { name: 'Depot', location_type: roomType.id, status: 'Active' });
    maker = await post('/api/dcim/manufacturers/', { name: 'Juniper' });
    other = await post('/api/dcim/manufacturers/', { name: 'Finisar' });
    role = await post('/api/extras/roles/', { name: 'Router', content_types: ['dcim.device'] });
    family = await post('/api/dcim/module-families/', { name: 'MPC' });
    chassis = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'MX480' });
    lineCard = await post('/api/dcim/module-types/', { manufacturer: maker.id, model: 'MPC7E', module_family: family.id });
    optic = await post('/api/dcim/module-types/', { manufacturer: other.id, model: 'FTLX8571' });
    await post('/api/dcim/module-bay-templates/', [0, 1].map((n) => ({ device_type: chassis.id, name: `FPC ${n}`, position: `${n}`, module_family: family.id })));
    await post('/api/dcim/console-port-templates/', { device_type: chassis.id, name: 'Console' });
    const on = { module_type: lineCard.id };
    await post('/api/dcim/interface-templates/', [0, 1].map((n) => ({ ...on, name: `et-{module}/0/${n}`, type: '100gbase-x-qsfp28' })));
    await post('/api/dcim/power-port-templates/', { ...on, name: 'PEM {module}', type: 'iec-60320-c14' });
    const rear = await post('/api/dcim/rear-port-templates/', { ...on, name: 'Rear', type: 'lc', positions: 2 });
    await post('/api/dcim/front-port-templates/', { ...on, name: 'Front', type: 'lc', rear_port_template: rear.id, rear_port_position: 1 });
    await post('/api/dcim/module-bay-templates/', { ...on, name: 'PIC', position: '', requires_first_party_modules: true });
    await post('/api/dcim/interface-templates/', { module_type: optic.id, name: 'xe-{module}/{module.parent}', type: '10gbase-x-sfpp' });
    router = await post('/api/dcim/devices/', { name: 'r1', device_type: chassis.id, role: role.id, status: 'Active', location: site.id });
  });

  const bays = async (query: string) => (await list(`/api/dcim/module-bays/?${query}`)).results as Obj[];

  it('serves families and types with their counts, unique names and models per manufacturer', async () => {
    const got = (await t().get(`/api/dcim/module-families/${family.id}/`).expect(200)).body;
    expect(got).toMatchObject({ name: 'MPC', display: 'MPC', module_type_count: 1, module_bay_count: 2 });
    expect((await refuse('/api/dcim/module-families/', { name: 'MPC' })).name).toEqual(['module family with this Name already exists.']);
    expect((await refuse('/api/dcim/module-types/', { manufacturer: maker.id, model: 'MPC7E' })).non_field_errors).toEqual(['The fields manufacturer, model must make a unique set.']);
    expect((await t().get(`/api/dcim/module-types/${lineCard.id}/`).expect(200)).body).toMatchObject({ display: 'Juniper MPC7E', model: 'MPC7E', part_number: '', comments: '' });
    expect((await list('/api/dcim/module-types/?module_family=MPC')).results.map((r: Obj) => r.model)).toEqual(['MPC7E']);
    expect((await list('/api/dcim/module-types/?has_interface_templates=true')).results.map((r: Obj) => r.model).sort()).toEqual(['FTLX8571', 'MPC7E']);
  });

  it('puts a template on a device type or a module type, exactly one, names unique per module type', async () => {
    expect((await refuse('/api/dcim/console-port-templates/', { name: 'x' })).__all__).toEqual(['Either device_type or module_type must be set']);
    expect((await refuse('/api/dcim/console-port-templates/', { name: 'x', device_type: chassis.id, module_type: lineCard.id })).non_field_errors).toEqual(['Only one of device_type or module_type must be set']);
    expect((await refuse('/api/dcim/power-port-templates/', { module_type: lineCard.id, name: 'PEM {module}' })).non_field_errors).toEqual(['The fields module_type, name must make a unique set.']);
    // The same name on a device type and a module type is fine.
    await post('/api/dcim/power-port-templates/', { device_type: chassis.id, name: 'PEM {module}' });
    const rear = (await list(`/api/dcim/rear-port-templates/?module_type=${lineCard.id}`)).results[0];
    expect((await refuse('/api/dcim/front-port-templates/', { device_type: chassis.id, name: 'F2', type: 'lc', rear_port_template: rear.id, rear_port_position: 2 })).__all__).toEqual([
      'Rear port (Rear) must belong to the same device type',
    ]);
    expect((await refuse('/api/dcim/front-port-templates/', { module_type: optic.id, name: 'F2', type: 'lc', rear_port_template: rear.id, rear_port_position: 2 })).__all__).toEqual([
      'Rear port (Rear) must belong to the same module type',
    ]);
    expect(await names(`/api/dcim/interface-templates/?module_type=${lineCard.id}`)).toEqual(['et-{module}/0/0', 'et-{module}/0/1']);
    expect(await names('/api/dcim/interface-templates/?module_type=MPC7E&has_device_type=false')).toEqual(['et-{module}/0/0', 'et-{module}/0/1']);
    expect((await list(`/api/dcim/module-bay-templates/?module_type=${lineCard.id}`)).results[0]).toMatchObject({ display: 'MPC7E (PIC)', device_type: null });
  });

  it("installs a module in a device's bay and gives it its type's components with {module} filled in, in one transaction", async () => {
    const [fpc0] = await bays(`parent_device=${router.id}&name=FPC 0`);
    const card = await post('/api/dcim/modules/', { module_type: lineCard.id, parent_module_bay: fpc0.id, status: 'Active', serial: 'CARD0' });
    expect(card).toMatchObject({ display: 'MPC7E installed in r1', location: null, asset_tag: null });
    expect(await names(`/api/dcim/interfaces/?module=${card.id}`)).toEqual(['et-0/0/0', 'et-0/0/1']);
    expect((await list(`/api/dcim/interfaces/?module=${card.id}`)).results[0]).toMatchObject({ device: null, module: expect.objectContaining({ id: card.id }) });
    expect(await names(`/api/dcim/power-ports/?module=${card.id}`)).toEqual(['PEM 0']);
    const [front] = (await list(`/api/dcim/front-ports/?module=${card.id}`)).results;
    const [rear] = (await list(`/api/dcim/rear-ports/?module=${card.id}`)).results;
    expect(front.rear_port.id).toBe(rear.id);
    // Its own bay is a module bay of the module, named as the template (no rendering), its position the name.
    const [pic] = await bays(`parent_module=${card.id}`);
    expect(pic).toMatchObject({ name: 'PIC', position: 'PIC', parent_device: null, requires_first_party_modules: true });
    // The device's component filters reach its modules' components (the reference's device filter).
    expect(await names(`/api/dcim/interfaces/?device=${router.id}`)).toEqual(['et-0/0/0', 'et-0/0/1']);
    expect(await names('/api/dcim/power-ports/?device=r1')).toEqual(['PEM 0']);
    expect(await names(`/api/dcim/console-ports/?device=${router.id}`)).toEqual(['Console']);
    expect((await list(`/api/dcim/modules/?device=${router.id}`)).count).toBe(1);
    expect((await list(`/api/dcim/devices/?has_modules=true`)).results.map((d: Obj) => d.name)).toEqual(['r1']);
    expect((await list(`/api/dcim/devices/?has_empty_module_bays=true`)).results.map((d: Obj) => d.name)).toEqual(['r1']);
  });

  it('nests modules in modules and fills {module.parent} from the bays above', async () => {
    const [fpc1] = await bays(`parent_device=${router.id}&name=FPC 1`);
    const card = await post('/api/dcim/modules/', { module_type: lineCard.id, parent_module_bay: fpc1.id, status: 'Active' });
    const [pic] = await bays(`parent_module=${card.id}`);
    // The PIC bay takes first-party modules only: a Finisar optic is refused.
    expect((await refuse('/api/dcim/modules/', { module_type: optic.id, parent_module_bay: pic.id, status: 'Active' })).module_type).toEqual([
      'The selected module bay requires a module type from the same manufacturer as the parent device or module',
    ]);
    await t().patch(`/api/dcim/module-bays/${pic.id}/`, { requires_first_party_modules: false, position: '2' }).expect(200);
    const sfp = await post('/api/dcim/modules/', { module_type: optic.id, parent_module_bay: pic.id, status: 'Active' });
    expect(await names(`/api/dcim/interfaces/?module=${sfp.id}`)).toEqual(['xe-2/1']);
    expect(await names(`/api/dcim/interfaces/?device=${router.id}`)).toEqual(['et-0/0/0', 'et-0/0/1', 'et-1/0/0', 'et-1/0/1', 'xe-2/1']);
    expect((await list(`/api/dcim/modules/?device=r1`)).count).toBe(3);
    // A bay holds one module; a module cannot go into its own descendants.
    expect((await refuse('/api/dcim/modules/', { module_type: optic.id, parent_module_bay: pic.id, status: 'Active' })).parent_module_bay).toEqual(['module with this parent module bay already exists.']);
    const spare = await post('/api/dcim/module-bays/', { parent_module: sfp.id, name: 'Sub' });
    expect((await t().patch(`/api/dcim/modules/${card.id}/`, { parent_module_bay: spare.id }).expect(400)).body.__all__).toEqual(['Creating this instance would cause an infinite loop.']);
  });

  it('keeps a module in storage at a location, never both or neither, with the reference messages', async () => {
    expect((await refuse('/api/dcim/modules/', { module_type: optic.id, status: 'Active' })).__all__).toEqual(['One of location or parent_module_bay must be set']);
    const [fpc0] = await bays(`parent_device=${router.id}&name=FPC 0`);
    expect((await refuse('/api/dcim/modules/', { module_type: optic.id, status: 'Active', location: site.id, parent_module_bay: fpc0.id })).non_field_errors).toEqual([
      'Only one of parent_module_bay or location must be set',
    ]);
    expect((await refuse('/api/dcim/modules/', { module_type: optic.id, status: 'Active', location: depot.id })).location).toEqual(['Modules may not associate to locations of type "Room".']);
    const spare = await post('/api/dcim/modules/', { module_type: optic.id, status: 'Active', location: site.id, serial: 'S1', asset_tag: 'A1' });
    expect(spare.display).toBe('FTLX8571 (Serial: S1) (Asset Tag: A1) at location AMS1');
    // {module} stays in a module in storage: no bay, no position.
    expect(await names(`/api/dcim/interfaces/?module=${spare.id}`)).toEqual(['xe-{module}/{module.parent}']);
    expect((await refuse('/api/dcim/modules/', { module_type: optic.id, status: 'Active', location: site.id, serial: 'S1' })).non_field_errors).toEqual(['The fields module_type, serial must make a unique set.']);
    expect((await refuse('/api/dcim/modules/', { module_type: lineCard.id, status: 'Active', location: site.id, asset_tag: 'A1' })).asset_tag).toEqual(['module with this Asset tag already exists.']);
    // A module type of another family does not fit a bay of the MPC family.
    const [fpc1] = await bays(`parent_device=${router.id}&name=FPC 1`);
    expect((await list(`/api/dcim/module-types/?compatible_with_module_bay=${fpc1.id}`)).results.map((r: Obj) => r.model)).toEqual(['MPC7E']);
    const extra = await post('/api/dcim/module-bays/', { parent_device: router.id, name: 'FPC 9', module_family: family.id });
    expect((await refuse('/api/dcim/modules/', { module_type: optic.id, parent_module_bay: extra.id, status: 'Active' })).module_type).toEqual([
      'The selected module bay requires a module type in the family MPC, but the selected module type is not assigned to a family.',
    ]);
    expect((await list('/api/dcim/modules/?is_installed=false')).results.map((m: Obj) => m.id)).toEqual([spare.id]);
  });

  it('puts a component on a device or a module, exactly one, names unique per module', async () => {
    const spare = (await list('/api/dcim/modules/?is_installed=false')).results[0];
    expect((await refuse('/api/dcim/interfaces/', { name: 'x', type: 'virtual', status: 'Active' })).__all__).toEqual(['Either device or module must be set']);
    expect((await refuse('/api/dcim/interfaces/', { name: 'x', type: 'virtual', status: 'Active', device: router.id, module: spare.id })).non_field_errors).toEqual(['Only one of device or module must be set']);
    await post('/api/dcim/console-ports/', { module: spare.id, name: 'Console' });
    expect((await refuse('/api/dcim/console-ports/', { module: spare.id, name: 'Console' })).non_field_errors).toEqual(['The fields module, name must make a unique set.']);
    expect((await refuse('/api/dcim/module-bays/', { name: 'x', parent_device: router.id, parent_module: spare.id })).non_field_errors).toEqual(['Only one of parent_device or parent_module must be set']);
    expect((await refuse('/api/dcim/module-bays/', { name: 'x' })).__all__).toEqual(['Either parent_device or parent_module must be set']);
  });

  it('takes a module and everything below it (components, bays, nested modules) when it or its bay goes', async () => {
    const r2 = await post('/api/dcim/devices/', { name: 'r2', device_type: chassis.id, role: role.id, status: 'Active', location: site.id });
    const [fpc0] = await bays(`parent_device=${r2.id}&name=FPC 0`);
    const card = await post('/api/dcim/modules/', { module_type: lineCard.id, parent_module_bay: fpc0.id, status: 'Active' });
    const [pic] = await bays(`parent_module=${card.id}`);
    await t().patch(`/api/dcim/module-bays/${pic.id}/`, { requires_first_party_modules: false }).expect(200);
    const sfp = await post('/api/dcim/modules/', { module_type: optic.id, parent_module_bay: pic.id, status: 'Active' });
    expect((await list(`/api/dcim/interfaces/?device=${r2.id}`)).count).toBe(3);
    await t().del(`/api/dcim/modules/${card.id}/`).expect(204);
    await t().get(`/api/dcim/modules/${sfp.id}/`).expect(404);
    expect((await list(`/api/dcim/interfaces/?device=${r2.id}`)).count).toBe(0);
    expect((await bays(`parent_device=${r2.id}`)).length).toBe(2);
    // A module type in use is protected.
    expect((await t().del(`/api/dcim/module-types/${optic.id}/`).expect(409)).body).toBeDefined();
    // A device going takes its bays, their modules and their components.
    const again = await post('/api/dcim/modules/', { module_type: lineCard.id, parent_module_bay: fpc0.id, status: 'Active' });
    await t().del(`/api/dcim/devices/${r2.id}/`).expect(204);
    await t().get(`/api/dcim/modules/${again.id}/`).expect(404);
    expect((await list(`/api/dcim/interfaces/?module__isnull=false&name=et-0/0/0`)).count).toBe(1);
  });

  it('finds and writes modules as the Ansible collection does: a bay named by its device and name, a module by type and serial', async () => {
    const bay = await post('/api/dcim/module-bays/', { parent_device: { name: 'r1' }, name: 'Slot 8', position: '8' });
    const card = await post('/api/dcim/modules/', { module_type: { model: 'MPC7E' }, parent_module_bay: { parent_device: { name: 'r1' }, name: 'Slot 8' }, status: 'Active', serial: 'ANS1' });
    expect(card.parent_module_bay.id).toBe(bay.id);
    expect((await list('/api/dcim/modules/?module_type=MPC7E&serial=ANS1')).results.map((m: Obj) => m.id)).toEqual([card.id]);
    const [pic] = await bays(`parent_module=${card.id}&name=PIC`);
    expect(pic.position).toBe('PIC');
    expect(await names(`/api/dcim/interfaces/?module=${card.id}`)).toEqual(['et-8/0/0', 'et-8/0/1']);
  });

  it("filters modules and bays as the reference's filter sets do", async () => {
    const [card] = (await list('/api/dcim/modules/?serial=CARD0')).results;
    const ids = async (path: string) => (await list(path)).results.map((r: Obj) => r.id);
    expect(await ids('/api/dcim/modules/?interfaces=et-0/0/0')).toEqual([card.id]);
    expect(await ids('/api/dcim/modules/?manufacturer=Juniper&module_family=MPC&serial=CARD0')).toEqual([card.id]);
    expect(await ids('/api/dcim/modules/?has_console_ports=false&power_ports=PEM 0')).toEqual([card.id]);
    expect(await ids(`/api/dcim/modules/?module_bays=${(await bays(`parent_module=${card.id}`))[0].id}`)).toEqual([card.id]);
    expect(await ids(`/api/dcim/module-bays/?installed_module=${card.id}`)).toEqual([card.parent_module_bay.id]);
    expect((await list(`/api/dcim/module-bays/?parent_device=r1&has_installed_module=false`)).results.map((b: Obj) => b.name).sort()).toEqual(['FPC 9']);
    expect(await ids(`/api/dcim/module-families/?module_types=MPC7E`)).toEqual([family.id]);
    expect((await list('/api/dcim/module-bay-templates/?module_family=MPC')).count).toBe(2);
    expect((await list(`/api/dcim/console-ports/?module__isnull=false`)).results.every((c: Obj) => c.device === null)).toBe(true);
  });

  it('fills the {module} names still left when a module moves to a bay with a position', async () => {
    const spare = await post('/api/dcim/modules/', { module_type: optic.id, status: 'Active', location: site.id });
    const bay = await post('/api/dcim/module-bays/', { parent_device: router.id, name: 'Slot 7', position: '7' });
    await t().patch(`/api/dcim/modules/${spare.id}/`, { location: null, parent_module_bay: bay.id }).expect(200);
    expect(await names(`/api/dcim/interfaces/?module=${spare.id}`)).toEqual(['xe-7/{module.parent}']);
  });

  it("puts a cable on a module's interface on the module's device, as the reference's Cable.save", async () => {
    const bay = await post('/api/dcim/module-bays/', { parent_device: router.id, name: 'Slot 6', position: '6' });
    const card = await post('/api/dcim/modules/', { module_type: lineCard.id, parent_module_bay: bay.id, status: 'Active' });
    const port = await post('/api/dcim/module-bays/', { parent_module: card.id, name: 'Port 0', position: '0' });
    const optic6 = await post('/api/dcim/modules/', { module_type: optic.id, parent_module_bay: port.id, status: 'Active' });
    const [nested] = (await list(`/api/dcim/interfaces/?module=${optic6.id}`)).results;
    const [onCard] = (await list(`/api/dcim/interfaces/?module=${card.id}`)).results;
    const cable = await post('/api/dcim/cables/', { termination_a_type: 'dcim.interface', termination_a_id: onCard.id, termination_b_type: 'dcim.interface', termination_b_id: nested.id, status: 'Connected' });
    expect((await list(`/api/dcim/cables/?device=r1`)).results.map((c: Obj) => c.id)).toContain(cable.id);
    expect((await list(`/api/dcim/cables/?device_id=${router.id}`)).results.map((c: Obj) => c.id)).toContain(cable.id);
    await t().del(`/api/dcim/cables/${cable.id}/`).expect(204);
  });

  it('grants nothing through a constraint on a module bay that does not exist', async () => {
    const none = await t().userWith('bay-constrained', [{ types: ['dcim.moduletype'], actions: ['view'], constraints: { compatible_with_module_bay: 'no-such-bay' } }]);
    expect((await t().get('/api/dcim/module-types/', none).expect(200)).body.count).toBe(0);
    const [fpc1] = await bays(`parent_device=${router.id}&name=FPC 1`);
    const some = await t().userWith('bay-constrained-2', [{ types: ['dcim.moduletype'], actions: ['view'], constraints: { compatible_with_module_bay: fpc1.id } }]);
    expect((await t().get('/api/dcim/module-types/', some).expect(200)).body.results.map((m: Obj) => m.model)).toEqual(['MPC7E']);
  });

  it('updates installed modules and their interfaces in statements that do not grow with the batch', async () => {
    const installed = (await list(`/api/dcim/modules/?device=${router.id}&limit=10`)).results as Obj[];
    expect(installed.length).toBeGreaterThanOrEqual(2);
    const cost = (items: Obj[], path: string, body: Obj) => t().countStatements(() => t().patch(path, items.map((i) => ({ id: i.id, ...body }))).expect(200));
    expect(await cost(installed, '/api/dcim/modules/', { status: 'Planned' })).toBe(await cost(installed.slice(0, 1), '/api/dcim/modules/', { status: 'Active' }));
    const ifaces = (await list(`/api/dcim/interfaces/?device=${router.id}&module__isnull=false&limit=10`)).results as Obj[];
    expect(ifaces.length).toBeGreaterThanOrEqual(2);
    expect(await cost(ifaces, '/api/dcim/interfaces/', { description: 'bulk' })).toBe(await cost(ifaces.slice(0, 1), '/api/dcim/interfaces/', { description: 'one' }));
  });
});
