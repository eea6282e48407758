import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * Circuits as Nautobot 2.4 serves them: providers, provider networks, circuit types and
 * circuits with their unique sets and counts; terminations at a location or on a provider
 * network (the reference's rule and messages), kept on their circuit as circuit_termination_a /
 * _z, cabled to DCIM interfaces and traced through the circuit from one end to the other.
 */
eachDatabase('circuits', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const get = async (path: string) => (await t().get(path).expect(200)).body;
  const ids = async (path: string) => (await get(path)).results.map((x: Obj) => x.id);
  const read = (o: Obj, q = '') => get(`${o.url.replace(/^https?:\/\/[^/]+/, '')}${q}`);
  const cable = (a: Obj, b: Obj) => post('/api/dcim/cables/', { termination_a_type: a.object_type, termination_a_id: a.id, termination_b_type: b.object_type, termination_b_id: b.id, status: 'Connected' });
  const badCable = (a: Obj, b: Obj) => refuse('/api/dcim/cables/', { termination_a_type: a.object_type, termination_a_id: a.id, termination_b_type: b.object_type, termination_b_id: b.id, status: 'Connected' });
  let site: Obj;
  let room: Obj;
  let region: Obj;
  let telco: Obj;
  let other: Obj;
  let metro: Obj;
  let longHaul: Obj;
  let device: Obj;

  beforeAll(async () => {
    const regionType = await post('/api/dcim/location-types/', { name: 'Region', content_types: [] });
    const siteType = await post('/api/dcim/location-types/', { name: 'Site', parent: regionType.id, content_types: ['circuits.circuittermination', 'dcim.device'] });
    region = await post('/api/dcim/locations/', { name: 'EU', location_type: regionType.id, status: 'Active' });
    site = await post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, parent: region.id, status: 'Active' });
    room = await post('/api/dcim/locations/', { name: 'FRA1', location_type: siteType.id, parent: region.id, status: 'Active' });
    telco = await post('/api/circuits/providers/', { name: 'Telco', asn: 65001, account: 'ACC-1', portal_url: 'https://portal.telco.example/', noc_contact: 'noc@telco.example' });
    other = await post('/api/circuits/providers/', { name: 'Other' });
    metro = await post('/api/circuits/circuit-types/', { name: 'Metro' });
    longHaul = await post('/api/circuits/circuit-types/', { name: 'Long Haul' });
    const maker = await post('/api/dcim/manufacturers/', { name: 'Acme' });
    const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Router' });
    const role = await post('/api/extras/roles/', { name: 'Edge', content_types: ['dcim.device'] });
    device = await post('/api/dcim/devices/', { name: 'edge1', device_type: type.id, role: role.id, status: 'Active', location: site.id });
  });

  const circuit = (cid: string, extra: object = {}) => post('/api/circuits/circuits/', { cid, provider: telco.id, circuit_type: metro.id, status: 'Active', ...extra });
  const term = (c: Obj, side: string, extra: object = {}) => post('/api/circuits/circuit-terminations/', { circuit: c.id, term_side: side, ...extra });
  const iface = (name: string) => post('/api/dcim/interfaces/', { device: device.id, name, type: '1000base-t', status: 'Active' });

  it('keeps providers, networks, types and circuits unique as the reference does', async () => {
    expect(telco).toMatchObject({ display: 'Telco', asn: 65001, account: 'ACC-1', portal_url: 'https://portal.telco.example/', circuit_count: 0 });
    expect(await refuse('/api/circuits/providers/', { name: 'Telco' })).toEqual({ name: ['provider with this Name already exists.'] });
    expect(await refuse('/api/circuits/providers/', { name: 'Bad URL', portal_url: 'portal.telco' })).toEqual({ portal_url: ['Enter a valid URL.'] });
    expect(await refuse('/api/circuits/circuit-types/', { name: 'Metro' })).toEqual({ name: ['circuit type with this Name already exists.'] });
    const net = await post('/api/circuits/provider-networks/', { provider: telco.id, name: 'MPLS' });
    expect(net).toMatchObject({ display: 'Telco MPLS', provider: { id: telco.id } });
    expect(await refuse('/api/circuits/provider-networks/', { provider: telco.id, name: 'MPLS' })).toEqual({ non_field_errors: ['The fields provider, name must make a unique set.'] });
    await post('/api/circuits/provider-networks/', { provider: other.id, name: 'MPLS' });
    const c = await circuit('CID-UNIQUE', { install_date: '2024-01-31', commit_rate: 10000 });
    expect(c).toMatchObject({ display: 'CID-UNIQUE', status: { object_type: 'extras.status' }, install_date: '2024-01-31', commit_rate: 10000, circuit_termination_a: null, circuit_termination_z: null });
    expect(await refuse('/api/circuits/circuits/', { cid: 'CID-UNIQUE', provider: telco.id, circuit_type: metro.id, status: 'Active' })).toEqual({ non_field_errors: ['The fields provider, cid must make a unique set.'] });
    await circuit('CID-UNIQUE', { provider: other.id });
    // A circuit's status is one of the reference's defaults for circuits.
    const statuses = (await get('/api/extras/statuses/?content_types=circuits.circuit&limit=100')).results.map((s: Obj) => s.name).sort();
    expect(statuses).toEqual(['Active', 'Decommissioned', 'Deprovisioning', 'Offline', 'Planned', 'Provisioning']);
    expect(await refuse('/api/circuits/circuits/', { cid: 'X', provider: telco.id, circuit_type: metro.id, status: 'Available' })).toHaveProperty('status');
    // pynautobot's nb.circuits.circuits.get(cid=...) filters by cid; a circuit is named by its cid in filters.
    expect(await ids('/api/circuits/circuits/?cid=CID-UNIQUE&provider=Telco')).toEqual([c.id]);
    expect(await ids(`/api/circuits/providers/?circuits=CID-UNIQUE&name=Telco`)).toEqual([telco.id]);
    // Protected while circuits use them.
    await t().del(`/api/circuits/providers/${other.id}/`).expect(409);
  });

  it('reads back what a client wrote, so a module run twice changes nothing (the Ansible modules find circuits by cid, terminations by circuit and side)', async () => {
    const body = { cid: 'CID-ROUND', provider: telco.id, circuit_type: metro.id, status: 'Active', install_date: '2024-02-01', commit_rate: 10000, description: 'd', comments: 'c' };
    const c = await post('/api/circuits/circuits/', body);
    const found = (await get('/api/circuits/circuits/?cid=CID-ROUND')).results;
    expect(found.map((x: Obj) => x.id)).toEqual([c.id]);
    expect(found[0]).toMatchObject({ install_date: '2024-02-01', commit_rate: 10000, description: 'd', comments: 'c', provider: { id: telco.id }, circuit_type: { id: metro.id } });
    const a = await term(c, 'A', { location: site.id, port_speed: 100000, upstream_speed: 10000, xconnect_id: 'XC-R', pp_info: 'PP-R' });
    const byKey = (await get(`/api/circuits/circuit-terminations/?circuit=${c.id}&term_side=A`)).results;
    expect(byKey.map((x: Obj) => x.id)).toEqual([a.id]);
    expect(byKey[0]).toMatchObject({ circuit: { id: c.id }, port_speed: 100000, upstream_speed: 10000, xconnect_id: 'XC-R', pp_info: 'PP-R', location: { id: site.id } });
    // A PATCH with the values read back leaves them as they were.
    const again = (await t().patch(`/api/circuits/circuit-terminations/${a.id}/`, { port_speed: 100000, term_side: 'A', circuit: c.id }).expect(200)).body;
    expect(again).toMatchObject({ port_speed: 100000, term_side: { value: 'A' } });
    // A provider kept by its network says so, naming the network as the reference does.
    const p = await post('/api/circuits/providers/', { name: 'Kept' });
    const net = await post('/api/circuits/provider-networks/', { provider: p.id, name: 'Kept net' });
    expect((await t().del(`/api/circuits/providers/${p.id}/`).expect(409)).body).toEqual({ detail: `Unable to delete object. 1 dependent objects were found: Kept net (${net.id})` });
    await t().del(`/api/circuits/provider-networks/${net.id}/`).expect(204);
    await t().del(`/api/circuits/providers/${p.id}/`).expect(204);
  });

  it('attaches a termination to a location or a provider network, not both, with the reference messages', async () => {
    const c = await circuit('CID-RULES');
    const net = await post('/api/circuits/provider-networks/', { provider: telco.id, name: 'Rules net' });
    const path = '/api/circuits/circuit-terminations/';
    expect(await refuse(path, { circuit: c.id, term_side: 'A' })).toEqual({ __all__: ['A circuit termination must attach to a location, a provider network or a cloud network.'] });
    expect(await refuse(path, { circuit: c.id, term_side: 'A', location: site.id, provider_network: net.id })).toEqual({
      __all__: ['A circuit termination cannot attach to both a location and a provider network.'],
    });
    // The location's type must allow circuit terminations.
    expect(await refuse(path, { circuit: c.id, term_side: 'A', location: region.id })).toEqual({ location: ['Circuit terminations may not associate to locations of type "Region"'] });
    expect(await refuse(path, { circuit: c.id, term_side: 'B', location: site.id })).toHaveProperty('term_side');
    const a = await term(c, 'A', { location: site.id, port_speed: 100000, upstream_speed: 10000, xconnect_id: 'XC-1', pp_info: 'PP 1/2' });
    expect(a).toMatchObject({ display: 'Termination A: AMS1', term_side: { value: 'A', label: 'A' }, location: { id: site.id }, provider_network: null, port_speed: 100000, cable: null, cable_peer: null, connected_endpoint: null });
    expect(await refuse(path, { circuit: c.id, term_side: 'A', location: room.id })).toEqual({ non_field_errors: ['The fields circuit, term_side must make a unique set.'] });
    const z = await term(c, 'Z', { provider_network: net.id });
    expect(z.display).toBe('Termination Z: Rules net');
    // The circuit shows its two ends; search finds it by a termination's cross-connect.
    expect(await read(c)).toMatchObject({ circuit_termination_a: { id: a.id, object_type: 'circuits.circuittermination' }, circuit_termination_z: { id: z.id } });
    expect((await read(c, '?depth=1')).circuit_termination_a).toMatchObject({ id: a.id, xconnect_id: 'XC-1' });
    expect(await ids('/api/circuits/circuits/?q=XC-1')).toEqual([c.id]);
    expect(await ids(`/api/circuits/circuits/?circuit_termination_a=${a.id}`)).toEqual([c.id]);
    expect(await ids('/api/circuits/circuits/?provider_network=Rules net')).toEqual([c.id]);
    expect(await ids('/api/circuits/circuit-terminations/?circuit=CID-RULES&term_side=Z')).toEqual([z.id]);
    // A termination that changes side moves on its circuit; a deleted one leaves it.
    await t().patch(`/api/circuits/circuit-terminations/${z.id}/`, { term_side: 'A' }).expect(400);
    await t().del(`/api/circuits/circuit-terminations/${a.id}/`).expect(204);
    await t().patch(`/api/circuits/circuit-terminations/${z.id}/`, { term_side: 'A' }).expect(200);
    expect(await read(c)).toMatchObject({ circuit_termination_a: { id: z.id }, circuit_termination_z: null });
    // A provider network in use is protected; the circuit takes its terminations with it.
    await t().del(`/api/circuits/provider-networks/${net.id}/`).expect(409);
    await t().del(`/api/circuits/circuits/${c.id}/`).expect(204);
    await t().get(`/api/circuits/circuit-terminations/${z.id}/`).expect(404);
  });

  it('counts circuits on locations, providers and types, and filters by location below a region', async () => {
    const p = await post('/api/circuits/providers/', { name: 'Counted' });
    const kind = await post('/api/circuits/circuit-types/', { name: 'Counted type' });
    const c1 = await circuit('CID-COUNT-1', { provider: p.id, circuit_type: kind.id });
    const c2 = await circuit('CID-COUNT-2', { provider: p.id, circuit_type: longHaul.id });
    const before = (await read(room)).circuit_count;
    await term(c1, 'A', { location: room.id });
    await term(c1, 'Z', { location: room.id });
    await term(c2, 'A', { location: site.id });
    expect((await read(room)).circuit_count).toBe(before + 2);
    expect(await read(p)).toMatchObject({ circuit_count: 2 });
    expect(await read(kind)).toMatchObject({ circuit_count: 1 });
    expect((await get('/api/circuits/circuit-types/?name=Counted type')).results[0].circuit_count).toBe(1);
    // A location filter takes the location's descendants.
    expect(await ids(`/api/circuits/circuits/?provider=Counted&location=${region.id}`)).toEqual([c1.id, c2.id]);
    expect(await ids('/api/circuits/circuits/?provider=Counted&location=FRA1')).toEqual([c1.id]);
    expect(await ids(`/api/circuits/providers/?location=${room.id}&name=Counted`)).toEqual([p.id]);
    expect(await ids(`/api/circuits/providers/?location=${region.id}&name=Counted`)).toEqual([p.id]);
    expect((await get('/api/circuits/providers/?location=FRA1')).results.map((x: Obj) => x.name)).toEqual(['Counted']);
    expect(await ids('/api/circuits/circuits/?provider=Counted&has_terminations=true')).toEqual([c1.id, c2.id]);
    const bare = await circuit('CID-COUNT-3', { provider: p.id });
    expect(await ids('/api/circuits/circuits/?provider=Counted&has_terminations=false')).toEqual([bare.id]);
    expect(await ids('/api/circuits/circuit-terminations/?location=FRA1&circuit=CID-COUNT-1')).toHaveLength(2);
  });

  it('cables terminations to interfaces and traces through the circuit to the far interface', async () => {
    const c = await circuit('CID-PATH');
    const a = await term(c, 'A', { location: site.id });
    const near = await iface('ge-0/0/1');
    const far = await iface('ge-0/0/2');
    const c1 = await cable(near, a);
    // No Z end yet: the path ends at the termination.
    expect(await read(near)).toMatchObject({ cable_peer_type: 'circuits.circuittermination', cable_peer: { id: a.id }, connected_endpoint_type: 'circuits.circuittermination', connected_endpoint: { id: a.id }, connected_endpoint_reachable: true });
    expect(await read(a)).toMatchObject({ cable: { id: c1.id }, cable_peer_type: 'dcim.interface', cable_peer: { id: near.id }, connected_endpoint: { id: near.id }, connected_endpoint_reachable: true });
    expect(await ids(`/api/circuits/circuit-terminations/?circuit=CID-PATH&cabled=true&connected=true`)).toEqual([a.id]);
    // A Z end without a cable: the path goes on to it and stops there, unreachable.
    const z = await term(c, 'Z', { location: room.id });
    expect(await read(near)).toMatchObject({ connected_endpoint: null, connected_endpoint_reachable: false });
    expect((await get(`/api/dcim/interfaces/${near.id}/trace/`)).map((seg: Obj[]) => seg.map((o) => o?.id ?? null))).toEqual([
      [near.id, c1.id, a.id],
      [z.id, null, null],
    ]);
    // Cabled at Z: each interface reaches the other through the circuit.
    const c2 = await cable(z, far);
    for (const [me, peer] of [[near, far], [far, near]]) {
      expect(await read(me)).toMatchObject({ connected_endpoint_type: 'dcim.interface', connected_endpoint: { id: peer.id }, connected_endpoint_reachable: true });
    }
    const trace = await get(`/api/dcim/interfaces/${near.id}/trace/`);
    expect(trace.map((seg: Obj[]) => seg.map((o) => o?.id ?? null))).toEqual([
      [near.id, c1.id, a.id],
      [z.id, c2.id, far.id],
    ]);
    expect(trace[0][2]).toMatchObject({ object_type: 'circuits.circuittermination', display: 'Termination A: AMS1' });
    expect((await get(`/api/circuits/circuit-terminations/${z.id}/trace/`)).map((seg: Obj[]) => seg.map((o) => o?.id ?? null))).toEqual([[z.id, c2.id, far.id]]);
    // A termination already cabled is named as the reference names it.
    const third = await iface('ge-0/0/3');
    expect(await badCable(third, a)).toEqual({ __all__: [`Termination A: AMS1 already has a cable attached (#${c1.id})`] });
    const psu = await post('/api/dcim/power-ports/', { device: device.id, name: 'PSU-C' });
    expect(await badCable(a, psu)).toEqual({ __all__: ['Incompatible termination types: Circuits | circuit termination and DCIM | power port'] });
    // The Z end goes (its cable with it): the near interface's path ends at A again.
    await t().del(`/api/circuits/circuit-terminations/${z.id}/`).expect(204);
    expect(await read(near)).toMatchObject({ connected_endpoint: { id: a.id }, connected_endpoint_reachable: true });
    expect(await read(far)).toMatchObject({ cable: null, connected_endpoint: null });
    expect((await read(c)).circuit_termination_z).toBeNull();
    // The circuit goes with its terminations and their cables.
    await t().del(`/api/circuits/circuits/${c.id}/`).expect(204);
    expect(await read(near)).toMatchObject({ cable: null, cable_peer: null, connected_endpoint: null, connected_endpoint_reachable: null });
  });

  it('refuses a cable on a termination attached to a provider network', async () => {
    const c = await circuit('CID-NET');
    const net = await post('/api/circuits/provider-networks/', { provider: telco.id, name: 'Uncabled net' });
    const onNet = await term(c, 'Z', { provider_network: net.id });
    const port = await iface('ge-0/0/9');
    expect(await badCable(port, onNet)).toEqual({ termination_b_id: ['Circuit terminations attached to a provider network may not be cabled.'] });
    expect(await badCable(onNet, port)).toEqual({ termination_a_id: ['Circuit terminations attached to a provider network may not be cabled.'] });
    expect((await read(port)).cable).toBeNull();
    // Its A end at a location takes a cable, and the path ends at the network end.
    const a = await term(c, 'A', { location: site.id });
    await cable(port, a);
    expect(await read(port)).toMatchObject({ connected_endpoint: null, connected_endpoint_reachable: false });
    expect((await get(`/api/dcim/interfaces/${port.id}/trace/`)).map((seg: Obj[]) => seg.map((o) => o?.id ?? null))[1]).toEqual([onNet.id, null, null]);
  });
});
