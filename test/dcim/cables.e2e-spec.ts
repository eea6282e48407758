import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

const text = (res: any, cb: (e: Error | null, body: string) => void) => {
  let s = '';
  res.setEncoding('utf8');
  res.on('data', (c: string) => (s += c));
  res.on('end', () => cb(null, s));
};

/**
 * Cables as Nautobot 2.4 serves them: the compatibility matrix and the reference's messages,
 * both ends' `cable` and `cable_peer`, and paths traced through patch panels (interface - front
 * port - rear port - cable - rear port - front port - interface), stored when cables are made,
 * changed or removed, with `connected_endpoint` on both ends and `trace/`.
 */
eachDatabase('cables', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const get = async (path: string) => (await t().get(path).expect(200)).body;
  const cable = (a: Obj, b: Obj, extra: object = {}) => post('/api/dcim/cables/', { termination_a_type: a.object_type, termination_a_id: a.id, termination_b_type: b.object_type, termination_b_id: b.id, status: 'Connected', ...extra });
  const bad = (a: Obj, b: Obj, extra: object = {}) => refuse('/api/dcim/cables/', { termination_a_type: a.object_type, termination_a_id: a.id, termination_b_type: b.object_type, termination_b_id: b.id, status: 'Connected', ...extra });
  const iface = async (device: Obj, name: string, type = '10gbase-x-sfpp') => post('/api/dcim/interfaces/', { device: device.id, name, type, status: 'Active' });
  const read = (o: Obj, q = '') => get(`${o.url.replace(/^https?:\/\/[^/]+/, '')}${q}`);
  let devices: Obj[];

  beforeAll(async () => {
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.device'] });
    const site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, status: 'Active' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'Acme' });
    const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box' });
    const role = await post('/api/extras/roles/', { name: 'Any', content_types: ['dcim.device'] });
    devices = await post('/api/dcim/devices/', ['r1', 'r2', 'panel1', 'panel2', 'r3'].map((name) => ({ name, device_type: type.id, role: role.id, status: 'Active', location: site.id })));
  });

  it('joins two interfaces: both ends show the cable, each other and their far end', async () => {
    const [r1, r2] = devices;
    const a = await iface(r1, 'et-0/0/0');
    const b = await iface(r2, 'et-0/0/0');
    const c = await cable(a, b, { type: 'smf', label: 'xc-1', color: 'AA1409', length: 30, length_unit: 'm' });
    expect(c).toMatchObject({
      display: 'xc-1',
      object_type: 'dcim.cable',
      termination_a_type: 'dcim.interface',
      termination_a_id: a.id,
      termination_a: { id: a.id, object_type: 'dcim.interface' },
      termination_b: { id: b.id, object_type: 'dcim.interface' },
      type: { value: 'smf', label: 'Singlemode Fiber' },
      status: { object_type: 'extras.status' },
      color: 'aa1409',
      length: 30,
      length_unit: { value: 'm', label: 'Meters' },
    });
    for (const [me, peer] of [[a, b], [b, a]]) {
      const x = await read(me);
      expect(x).toMatchObject({ cable: { id: c.id, object_type: 'dcim.cable' }, cable_peer_type: 'dcim.interface', cable_peer: { id: peer.id }, connected_endpoint_type: 'dcim.interface', connected_endpoint: { id: peer.id }, connected_endpoint_reachable: true });
      expect(x).not.toHaveProperty('cable_peer_id');
    }
    // Depth 1 and 2 nest the terminations, and their device.
    const d1 = await read(c, '?depth=1');
    expect(d1.termination_a).toMatchObject({ id: a.id, name: 'et-0/0/0', device: { id: r1.id, object_type: 'dcim.device' } });
    expect((await read(c, '?depth=2')).termination_b.device).toMatchObject({ id: r2.id, name: 'r2' });
    // The trace: one segment, each object in its own representation.
    const trace = await get(`/api/dcim/interfaces/${a.id}/trace/`);
    expect(trace).toHaveLength(1);
    expect(trace[0].map((o: Obj) => o.id)).toEqual([a.id, c.id, b.id]);
    expect(trace[0][1]).toMatchObject({ label: 'xc-1', object_type: 'dcim.cable' });
    // Filters: by device at either end, cabled and connected interfaces.
    expect((await get('/api/dcim/cables/?device=r2')).results.map((x: Obj) => x.id)).toEqual([c.id]);
    expect((await get(`/api/dcim/cables/?device_id=${r1.id}`)).count).toBe(1);
    expect((await get('/api/dcim/interfaces/?device=r1&cabled=true')).results.map((x: Obj) => x.id)).toEqual([a.id]);
    expect((await get('/api/dcim/interfaces/?device=r1&connected=true')).count).toBe(1);
    // A cable's status decides whether the far end is reachable.
    await t().patch(`/api/dcim/cables/${c.id}/`, { status: 'Planned' }).expect(200);
    expect((await read(a)).connected_endpoint_reachable).toBe(false);
    expect((await get('/api/dcim/interfaces/?device=r1&connected=false')).results.map((x: Obj) => x.id)).toEqual([a.id]);
    await t().patch(`/api/dcim/cables/${c.id}/`, { status: 'Connected' }).expect(200);
    expect((await read(b)).connected_endpoint_reachable).toBe(true);
    // Terminations never change; deleting the cable frees both ends.
    const other = await iface(r1, 'et-0/0/1');
    expect((await t().patch(`/api/dcim/cables/${c.id}/`, { termination_a_type: 'dcim.interface', termination_a_id: other.id }).expect(400)).body).toEqual({
      termination_a: ['Cable termination points may not be modified. Delete and recreate the cable instead.'],
    });
    await t().del(`/api/dcim/cables/${c.id}/`).expect(204);
    expect(await read(a)).toMatchObject({ cable: null, cable_peer: null, cable_peer_type: null, connected_endpoint: null, connected_endpoint_type: null, connected_endpoint_reachable: null });
    expect(await get(`/api/dcim/interfaces/${a.id}/trace/`)).toEqual([]);
  });

  it("shows in a trace and the connection lists only what the reader may view", async () => {
    const [r1, r2] = devices;
    const a = await iface(r1, 'scoped-a');
    const b = await iface(r2, 'scoped-b');
    const c = await cable(a, b);
    // May view r1's interfaces only, and no cable.
    const token = await t().userWith('trace-reader', [{ types: ['dcim.interface'], actions: ['view'], constraints: { device__name: 'r1' } }]);
    const trace = (await t().get(`/api/dcim/interfaces/${a.id}/trace/`, token).expect(200)).body;
    expect(trace).toEqual([[expect.objectContaining({ id: a.id }), null, null]]);
    await t().get(`/api/dcim/interfaces/${b.id}/trace/`, token).expect(404);
    const pairs = (await t().get('/api/dcim/interface-connections/?limit=1000', token).expect(200)).body.results;
    // The pair is listed from its lower id: from a (visible), its far end hidden; from b, not at all.
    const mine = pairs.filter((p: Obj) => p.interface_a.id === a.id).map((p: Obj) => [p.interface_a.id, p.interface_b]);
    expect(mine).toEqual(a.id < b.id ? [[a.id, null]] : []);
    expect(pairs.every((p: Obj) => p.interface_a.device.id === r1.id)).toBe(true);
    await t().get(`/api/dcim/cables/${c.id}/`, token).expect(403);
    await t().del(`/api/dcim/cables/${c.id}/`).expect(204);
  });

  it('refuses what the reference refuses, with its messages', async () => {
    const [r1, r2] = devices;
    const a = await iface(r1, 'ge-1');
    const b = await iface(r2, 'ge-1');
    const virtual = await iface(r1, 'lo0', 'virtual');
    const psu = await post('/api/dcim/power-ports/', { device: r2.id, name: 'PSU1' });
    expect(await bad(a, psu)).toEqual({ __all__: ['Incompatible termination types: DCIM | interface and DCIM | power port'] });
    expect(await bad(a, a)).toEqual({ __all__: ['Cannot connect DCIM | interface to itself'] });
    expect(await bad(virtual, b)).toEqual({ termination_a_id: ['Cables cannot be terminated to Virtual interfaces'] });
    expect(await bad(a, b, { length: 3 })).toEqual({ __all__: ['Must specify a unit when setting a cable length'] });
    const c = await cable(a, b);
    const third = await iface(r2, 'ge-2');
    expect(await bad(third, a)).toEqual({ __all__: [`ge-1 already has a cable attached (#${c.id})`] });
    // A cabled interface cannot become virtual.
    expect((await t().patch(`/api/dcim/interfaces/${a.id}/`, { type: 'virtual' }).expect(400)).body).toEqual({
      type: ['Virtual and wireless interfaces cannot be connected to another interface or circuit. Disconnect the interface or choose a suitable type.'],
    });
    // Two cables of one request may not share an end; nothing of it is kept.
    const x = await iface(r1, 'ge-3');
    const y = await iface(r2, 'ge-3');
    const z = await iface(r2, 'ge-4');
    const both = await t().post('/api/dcim/cables/', [
      { termination_a_type: 'dcim.interface', termination_a_id: x.id, termination_b_type: 'dcim.interface', termination_b_id: y.id, status: 'Connected' },
      { termination_a_type: 'dcim.interface', termination_a_id: x.id, termination_b_type: 'dcim.interface', termination_b_id: z.id, status: 'Connected' },
    ]).expect(400);
    expect(both.body[1]).toEqual({ __all__: ['ge-3 already has a cable attached'] });
    expect((await read(x)).cable).toBeNull();
    // A front port and its own rear port; rear ports of different positions.
    const rear = await post('/api/dcim/rear-ports/', { device: r1.id, name: 'R', type: 'lc', positions: 2 });
    const front = await post('/api/dcim/front-ports/', { device: r1.id, name: 'F', type: 'lc', rear_port: rear.id });
    expect(await bad(front, rear)).toEqual({ __all__: ['A front port cannot be connected to it corresponding rear port'] });
    const rear4 = await post('/api/dcim/rear-ports/', { device: r2.id, name: 'R4', type: 'lc', positions: 4 });
    expect(await bad(rear, rear4)).toEqual({ __all__: ['R has 2 position(s) but R4 has 4. Both terminations must have the same number of positions (if greater than one).'] });
  });

  it('traces through patch panels, and forgets the far end when a middle cable goes', async () => {
    const [r1, r2, p1, p2] = devices;
    const a = await iface(r1, 'xe-0/0/9');
    const b = await iface(r2, 'xe-0/0/9');
    const rear1 = await post('/api/dcim/rear-ports/', { device: p1.id, name: 'Trunk', type: 'mpo', positions: 12 });
    const rear2 = await post('/api/dcim/rear-ports/', { device: p2.id, name: 'Trunk', type: 'mpo', positions: 12 });
    const front1 = await post('/api/dcim/front-ports/', { device: p1.id, name: 'Port 5', type: 'lc', rear_port: rear1.id, rear_port_position: 5 });
    const front2 = await post('/api/dcim/front-ports/', { device: p2.id, name: 'Port 5', type: 'lc', rear_port: rear2.id, rear_port_position: 5 });
    const c1 = await cable(a, front1);
    expect(await read(a)).toMatchObject({ connected_endpoint: null, connected_endpoint_reachable: false, cable_peer: { id: front1.id } });
    const c2 = await cable(rear1, rear2);
    const c3 = await cable(front2, b);
    for (const [me, far] of [[a, b], [b, a]]) expect(await read(me)).toMatchObject({ connected_endpoint: { id: far.id }, connected_endpoint_type: 'dcim.interface', connected_endpoint_reachable: true });
    expect((await read(front1)).cable_peer).toMatchObject({ id: a.id });
    const trace = await get(`/api/dcim/interfaces/${a.id}/trace/`);
    expect(trace.map((seg: Obj[]) => seg.map((o) => o?.id ?? null))).toEqual([
      [a.id, c1.id, front1.id],
      [rear1.id, c2.id, rear2.id],
      [front2.id, c3.id, b.id],
    ]);
    // A pass-through port lists the paths through it: one from each end.
    const through = await get(`/api/dcim/rear-ports/${rear1.id}/paths/`);
    expect(through.map((p: Obj) => p.origin.id).sort()).toEqual([a.id, b.id].sort());
    const fromA = through.find((p: Obj) => p.origin.id === a.id);
    expect(fromA).toMatchObject({ origin_type: 'dcim.interface', destination_type: 'dcim.interface', destination: { id: b.id, object_type: 'dcim.interface' }, is_active: true, is_split: false });
    expect(fromA.path.map((o: Obj) => o.id)).toEqual([c1.id, front1.id, rear1.id, c2.id, rear2.id, front2.id, c3.id]);
    expect(await get(`/api/dcim/front-ports/${front2.id}/paths/`)).toHaveLength(2);
    // The middle cable goes: neither end reaches the other.
    await t().del(`/api/dcim/cables/${c2.id}/`).expect(204);
    for (const me of [a, b]) expect(await read(me)).toMatchObject({ connected_endpoint: null, connected_endpoint_reachable: false });
    expect((await get(`/api/dcim/interfaces/${a.id}/trace/`)).map((seg: Obj[]) => seg.map((o) => o?.id ?? null))).toEqual([
      [a.id, c1.id, front1.id],
      [rear1.id, null, null],
    ]);
    // Back again, then a whole panel device goes: its ports' cables with it, both ends freed.
    await cable(rear1, rear2);
    expect((await read(a)).connected_endpoint).toMatchObject({ id: b.id });
    await t().del(`/api/dcim/devices/${p2.id}/`).expect(204);
    expect(await read(b)).toMatchObject({ cable: null, connected_endpoint: null, connected_endpoint_reachable: null });
    expect(await read(a)).toMatchObject({ connected_endpoint: null, connected_endpoint_reachable: false });
    expect((await read(rear1)).cable).toBeNull();
  });

  it('joins power ports to outlets and feeds, and console ports to console server ports', async () => {
    const [r1, r2, , , r3] = devices;
    const psu = await post('/api/dcim/power-ports/', { device: r1.id, name: 'PSU0' });
    const outlet = await post('/api/dcim/power-outlets/', { device: r3.id, name: 'Out1' });
    await cable(psu, outlet, { type: 'power' });
    expect(await read(psu)).toMatchObject({ connected_endpoint_type: 'dcim.poweroutlet', connected_endpoint: { id: outlet.id }, connected_endpoint_reachable: true });
    const con = await post('/api/dcim/console-ports/', { device: r2.id, name: 'Console' });
    const server = await post('/api/dcim/console-server-ports/', { device: r3.id, name: 'Port 1' });
    await cable(server, con);
    expect((await get(`/api/dcim/console-ports/${con.id}/trace/`))[0].map((o: Obj) => o.object_type)).toEqual(['dcim.consoleport', 'dcim.cable', 'dcim.consoleserverport']);
    expect((await get('/api/dcim/console-ports/?connected=true')).results.map((x: Obj) => x.id)).toEqual([con.id]);
  });

  it('lists connections as the reference does, and finds the device behind a peer interface', async () => {
    const [r1, r2, , , r3] = devices;
    const a = await iface(r1, 'conn-a');
    const b = await iface(r3, 'conn-b');
    await cable(a, b);
    const pairs = (await get('/api/dcim/interface-connections/?limit=1000')).results;
    const mine = pairs.filter((p: Obj) => [a.id, b.id].includes(p.interface_a.id));
    expect(mine).toHaveLength(1);
    expect([mine[0].interface_a.id, mine[0].interface_b.id].sort()).toEqual([a.id, b.id].sort());
    expect(mine[0].connected_endpoint_reachable).toBe(true);
    // Each pair once, the lower id first.
    expect(pairs.every((p: Obj) => p.interface_a.id < p.interface_b.id)).toBe(true);
    // The dcim root names the connection lists, as the reference's does.
    const root = await get('/api/dcim/');
    for (const name of ['connected-device', 'console-connections', 'interface-connections', 'power-connections']) expect(new URL(root[name]).pathname).toBe(`/api/dcim/${name}/`);
    const consoles = await get('/api/dcim/console-connections/');
    expect(consoles.count).toBe(1);
    expect(consoles.results[0]).toMatchObject({ name: 'Console', connected_endpoint_type: 'dcim.consoleserverport' });
    expect((await get('/api/dcim/power-connections/?device=r1')).results.map((p: Obj) => p.name)).toEqual(['PSU0']);
    // connected-device: the device whose interface is at the far end of the peer's.
    expect((await get('/api/dcim/connected-device/?peer_device=r3&peer_interface=conn-b')).id).toBe(r1.id);
    expect((await t().get('/api/dcim/connected-device/?peer_device=r3').expect(400)).body).toEqual({ detail: 'Request must include "peer_device" and "peer_interface" filters.' });
    await t().get('/api/dcim/connected-device/?peer_device=r3&peer_interface=nope').expect(404);
    void r2;
  });

  it('round-trips cables through CSV, naming the ends by type and natural key', async () => {
    const [r1, r2] = devices;
    const a = await iface(r1, 'csv-a');
    const b = await iface(r2, 'csv-b');
    const c = await cable(a, b, { label: 'csv cable', type: 'cat6' });
    const exported = await t().get(`/api/dcim/cables/?format=csv&id=${c.id}`).buffer(true).parse(text).expect(200);
    const header = exported.body.split('\n')[0];
    expect(header).toContain('termination_a_type');
    expect(header).toContain('termination_a__device__name');
    expect(header).toContain('termination_b__name');
    await t().del(`/api/dcim/cables/${c.id}/`).expect(204);
    const res = await t().http.post('/api/dcim/cables/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(exported.body);
    expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
    expect(await read(a)).toMatchObject({ cable: { id: c.id }, connected_endpoint: { id: b.id } });
  });
});
