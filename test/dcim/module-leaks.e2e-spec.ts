import { parse as parseCsv } from 'csv-parse/sync';
import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * A user who may view modules but not some of what holds them (module bays, a device, a parent
 * module, a location, a module type) reads modules at every depth, one by one and as CSV, and
 * finds none of the hidden objects' data: a hidden related object is a bare reference
 * ({id, object_type, url}), and a module's display (which walks bay → device or bay → module →
 * bay → ... through several foreign keys) names nothing hidden, however many hops away.
 */
eachDatabase('modules read by a user who may not view what holds them', (t) => {
  const post = async (path: string, body: object) => {
    const res = await t().post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const SECRETS = ['Secret-Slot-2', 'Secret-Slot-5', 'Secret-Sub', 'SECRET-LABEL', 'ml-secret-r2', 'SECRET-SN', 'SECRET-AT', 'ML-Secret-Site', 'ML-Secret-Optic'];
  /** Hidden objects by type: ids that may appear only in references to that type. */
  const hidden = new Map<string, Set<string>>();
  const m: Record<string, Obj> = {};
  const visible: string[] = [];
  let tok = '';

  beforeAll(async () => {
    const siteType = await post('/api/dcim/location-types/', { name: 'ML site', content_types: ['dcim.device', 'dcim.module'] });
    const site = await post('/api/dcim/locations/', { name: 'ML-Open-Site', location_type: siteType.id, status: 'Active' });
    const secretSite = await post('/api/dcim/locations/', { name: 'ML-Secret-Site', location_type: siteType.id, status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'ML maker' });
    const role = await post('/api/extras/roles/', { name: 'ML role', content_types: ['dcim.device'] });
    const chassis = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'ML chassis' });
    const card = await post('/api/dcim/module-types/', { manufacturer: maker.id, model: 'ML-Card' });
    const optic = await post('/api/dcim/module-types/', { manufacturer: maker.id, model: 'ML-Secret-Optic' });
    const device = (name: string) => post('/api/dcim/devices/', { name, device_type: chassis.id, role: role.id, status: 'Active', location: site.id });
    const [open, secret] = [await device('ml-open-r1'), await device('ml-secret-r2')];
    const bay = (on: Obj, name: string) => post('/api/dcim/module-bays/', { ...on, name, position: name.replace(/\D/g, ''), ...(name.startsWith('Secret') ? { label: 'SECRET-LABEL', description: 'SECRET-LABEL' } : {}) });
    const onDevice = (d: Obj) => ({ parent_device: d.id });
    const onModule = (x: Obj) => ({ parent_module: x.id });
    const module = (b: Obj | null, extra: object = {}) => post('/api/dcim/modules/', { module_type: card.id, status: 'Active', ...(b ? { parent_module_bay: b.id } : {}), ...extra });
    const b: Record<string, Obj> = {};
    for (const name of ['Open-Slot-1', 'Secret-Slot-2', 'Open-Slot-3', 'Open-Slot-4', 'Secret-Slot-5']) b[name] = await bay(onDevice(open), name);
    b.ofHidden = await bay(onDevice(secret), 'Slot-of-hidden-device');
    // In a visible bay of a visible device; in a hidden bay; in a visible bay of a hidden device.
    m.plain = await module(b['Open-Slot-1'], { serial: 'OPEN-1' });
    m.inHiddenBay = await module(b['Secret-Slot-2']);
    m.onHiddenDevice = await module(b.ofHidden);
    // In a visible bay of a hidden module (which sits in a visible bay).
    m.hiddenParent = await module(b['Open-Slot-3'], { serial: 'SECRET-SN', asset_tag: 'SECRET-AT' });
    b.subOfHidden = await bay(onModule(m.hiddenParent), 'Sub-of-hidden-7');
    m.belowHidden = await module(b.subOfHidden);
    // In a visible and in a hidden bay of a visible module.
    m.parent = await module(b['Open-Slot-4'], { serial: 'OPEN-SN' });
    b.subOpen = await bay(onModule(m.parent), 'Sub-Open-8');
    b.subSecret = await bay(onModule(m.parent), 'Secret-Sub-9');
    m.child = await module(b.subOpen);
    m.inHiddenSubBay = await module(b.subSecret);
    // Two levels below a hidden bay: the chain of the display breaks in the middle.
    m.middle = await module(b['Secret-Slot-5']);
    b.subOfMiddle = await bay(onModule(m.middle), 'Sub-of-middle-10');
    m.grandchild = await module(b.subOfMiddle);
    // In storage at a hidden location; of a hidden module type.
    m.stored = await module(null, { location: secretSite.id, serial: 'STORED-1' });
    m.secretType = await module(null, { location: site.id, module_type: optic.id });

    hidden.set('dcim.modulebay', new Set([b['Secret-Slot-2'].id, b['Secret-Slot-5'].id, b.subSecret.id]));
    hidden.set('dcim.device', new Set([secret.id]));
    hidden.set('dcim.module', new Set([m.hiddenParent.id]));
    hidden.set('dcim.location', new Set([secretSite.id]));
    hidden.set('dcim.moduletype', new Set([optic.id]));
    for (const [k, x] of Object.entries(m)) if (k !== 'hiddenParent') visible.push(x.id);
    const except = (type: string) => ({ types: [type], actions: ['view'], constraints: { id__n: [...hidden.get(type)!] } });
    tok = await t().userWith('module-leaks', [
      ...['dcim.modulebay', 'dcim.device', 'dcim.module', 'dcim.location', 'dcim.moduletype'].map(except),
      { types: ['dcim.locationtype', 'dcim.manufacturer', 'dcim.devicetype', 'dcim.modulefamily', 'extras.status', 'extras.role', 'tenancy.tenant'], actions: ['view'] },
    ]);
  });

  /** No secret text anywhere; a hidden object only as a reference ({id, object_type, url}). */
  const assertClean = (where: string, body: unknown) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    for (const s of SECRETS) expect({ where, leaked: text.includes(s) ? s : null }).toEqual({ where, leaked: null });
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) return v.forEach(walk);
      if (!v || typeof v !== 'object') return;
      const o = v as Obj;
      if (typeof o.id === 'string' && hidden.get(o.object_type)?.has(o.id)) {
        expect({ where, keys: Object.keys(o).sort() }).toEqual({ where, keys: ['id', 'object_type', 'url'] });
        return;
      }
      Object.values(o).forEach(walk);
    };
    if (typeof body !== 'string') walk(body);
  };
  const get = async (path: string, token = tok) => {
    const res = await t().get(path, token);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.body;
  };
  const ref = (type: string, id: string) => ({ id, object_type: type, url: expect.stringMatching(new RegExp(`/api/dcim/${type === 'dcim.modulebay' ? 'module-bays' : 'devices'}/${id}/$`)) });

  it('lists and shows modules at every depth with hidden bays, devices, modules, locations and types as references only', async () => {
    for (const depth of [0, 1, 2, 3]) {
      const body = await get(`/api/dcim/modules/?limit=100&depth=${depth}`);
      assertClean(`list depth ${depth}`, body);
      expect({ depth, ids: body.results.map((o: Obj) => o.id).sort() }).toEqual({ depth, ids: [...visible].sort() });
      for (const id of visible) assertClean(`detail ${id} depth ${depth}`, await get(`/api/dcim/modules/${id}/?depth=${depth}`));
    }
    await t().get(`/api/dcim/modules/${m.hiddenParent.id}/`, tok).expect(404);
    // A hidden bay is a reference at any depth; a visible bay of a hidden device nests with the device as a reference.
    const one = async (x: Obj, depth: number) => get(`/api/dcim/modules/${x.id}/?depth=${depth}`);
    for (const depth of [1, 2]) {
      expect((await one(m.inHiddenBay, depth)).parent_module_bay).toEqual(ref('dcim.modulebay', m.inHiddenBay.parent_module_bay.id));
      expect((await one(m.inHiddenSubBay, depth)).parent_module_bay).toEqual(ref('dcim.modulebay', m.inHiddenSubBay.parent_module_bay.id));
      expect((await one(m.middle, depth)).parent_module_bay).toEqual(ref('dcim.modulebay', m.middle.parent_module_bay.id));
    }
    const onHidden = await one(m.onHiddenDevice, 2);
    expect(onHidden.parent_module_bay).toMatchObject({ name: 'Slot-of-hidden-device', display: ' (Slot-of-hidden-device)', parent_device: ref('dcim.device', [...hidden.get('dcim.device')!][0]) });
    const below = await one(m.belowHidden, 3);
    expect(below.parent_module_bay).toMatchObject({ name: 'Sub-of-hidden-7', display: ' (Sub-of-hidden-7)', parent_module: { id: m.hiddenParent.id, object_type: 'dcim.module' } });
    expect(Object.keys(below.parent_module_bay.parent_module).sort()).toEqual(['id', 'object_type', 'url']);
    // What is visible nests in full.
    const plain = await one(m.plain, 2);
    expect(plain.parent_module_bay).toMatchObject({ name: 'Open-Slot-1', display: 'ml-open-r1 (Open-Slot-1)', parent_device: { name: 'ml-open-r1', display: 'ml-open-r1' } });
  });

  it('displays a module through what holds it only as far as the requester may view', async () => {
    const shown = async (token: string) => new Map(((await get('/api/dcim/modules/?limit=100', token)).results as Obj[]).map((o) => [o.id, o.display]));
    const admin = await shown(t().token);
    const reader = await shown(tok);
    // The superuser sees the reference's displays.
    expect(Object.fromEntries(Object.entries(m).map(([k, x]) => [k, admin.get(x.id)]))).toEqual({
      plain: 'ML-Card installed in ml-open-r1',
      inHiddenBay: 'ML-Card installed in ml-open-r1',
      onHiddenDevice: 'ML-Card installed in ml-secret-r2',
      hiddenParent: 'ML-Card installed in ml-open-r1',
      belowHidden: 'ML-Card installed in ML-Card installed in ml-open-r1',
      parent: 'ML-Card installed in ml-open-r1',
      child: 'ML-Card installed in ML-Card installed in ml-open-r1',
      inHiddenSubBay: 'ML-Card installed in ML-Card installed in ml-open-r1',
      middle: 'ML-Card installed in ml-open-r1',
      grandchild: 'ML-Card installed in ML-Card installed in ml-open-r1',
      stored: 'ML-Card (Serial: STORED-1) at location ML-Secret-Site',
      secretType: 'ML-Secret-Optic at location ML-Open-Site',
    });
    // The reader: a hidden bay, device, module or location lends nothing; a visible bay lends its name.
    const { hiddenParent: _, ...seen } = m;
    expect(Object.fromEntries(Object.entries(seen).map(([k, x]) => [k, reader.get(x.id)]))).toEqual({
      plain: 'ML-Card installed in ml-open-r1',
      inHiddenBay: 'ML-Card installed in ',
      onHiddenDevice: 'ML-Card installed in Slot-of-hidden-device',
      belowHidden: 'ML-Card installed in Sub-of-hidden-7',
      parent: 'ML-Card installed in ml-open-r1',
      child: 'ML-Card installed in ML-Card installed in ml-open-r1',
      inHiddenSubBay: 'ML-Card installed in ',
      middle: 'ML-Card installed in ',
      grandchild: 'ML-Card installed in Sub-of-middle-10',
      stored: 'ML-Card (Serial: STORED-1) at location ',
      secretType: ' at location ML-Open-Site',
    });
  });

  it('exports modules as CSV naming hidden related objects by id only', async () => {
    const res = await t().get('/api/dcim/modules/?format=csv', tok).expect(200);
    assertClean('CSV', res.text);
    const [header, ...rows] = parseCsv(res.text) as string[][];
    expect(rows.map((r) => r[header.indexOf('id')]).sort()).toEqual([...visible].sort());
    for (const id of visible) assertClean(`CSV ${id}`, (await t().get(`/api/dcim/modules/${id}/?format=csv`, tok).expect(200)).text);
    // The superuser's export names them (the check above can fail).
    const all = (await t().get('/api/dcim/modules/?format=csv').expect(200)).text;
    for (const s of ['ml-secret-r2', 'SECRET-SN', 'ML-Secret-Site', 'ML-Secret-Optic']) expect({ s, found: all.includes(s) }).toEqual({ s, found: true });
  });

  it('finds no module through a hidden bay, device or parent module in filters, search and sorting', async () => {
    const count = async (q: string) => (await get(`/api/dcim/modules/?limit=100&${q}`)).count;
    for (const q of ['q=Secret-Slot', 'q=ml-secret-r2', 'q=SECRET-LABEL', 'parent_module_bay__name__ic=secret', 'parent_module_bay__parent_device__name=ml-secret-r2']) {
      expect({ q, count: await count(q) }).toEqual({ q, count: 0 });
    }
    expect((await t().get(`/api/dcim/modules/?parent_module_bay=${m.inHiddenBay.parent_module_bay.id}`, tok)).status).toBe(400);
    const byDevice = await t().get(`/api/dcim/modules/?device=${[...hidden.get('dcim.device')!][0]}`, tok);
    expect(byDevice.status === 400 || byDevice.body.count === 0).toBe(true);
    for (const sort of ['parent_module_bay', '-parent_module_bay']) assertClean(`sort ${sort}`, await get(`/api/dcim/modules/?limit=100&depth=1&sort=${sort}`));
  });
});
