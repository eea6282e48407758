import { eachDatabase } from '../../src/core/testing/harness';

/**
 * The locations of prefixes and VLANs as objects of their own (the reference's
 * PrefixLocationAssignment and VLANLocationAssignment): writing an object's `locations` makes and
 * removes them, an assignment that stays keeps its id, and they can be made and removed directly.
 */
eachDatabase('prefix and VLAN location assignments', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const site = async (name: string) => {
    const type = await post('/api/dcim/location-types/', { name: `${name} type` });
    return post('/api/dcim/locations/', { name, location_type: type.id, status: 'Active' });
  };
  const assignments = async (query: string) =>
    (await t().get(`/api/ipam/prefix-location-assignments/?${query}`).expect(200)).body.results as { id: string; location: { id: string }; display: string }[];

  it("keeps a prefix's locations as assignments: one per location, kept while it stays, gone when it goes", async () => {
    const [a, b, c] = [await site('AMS1'), await site('AMS2'), await site('FRA1')];
    const prefix = await post('/api/ipam/prefixes/', { prefix: '10.60.0.0/24', status: 'Active', locations: [a.id, b.id] });
    const first = await assignments(`prefix=${prefix.id}`);
    expect(first.map((x) => x.display).sort()).toEqual(['10.60.0.0/24: AMS1', '10.60.0.0/24: AMS2']);
    const kept = first.find((x) => x.location.id === b.id)!;

    await t().patch(`/api/ipam/prefixes/${prefix.id}/`, { locations: [b.id, c.id] }).expect(200);
    const second = await assignments(`prefix=${prefix.id}`);
    expect(second.map((x) => x.location.id).sort()).toEqual([b.id, c.id].sort());
    expect(second.find((x) => x.location.id === b.id)!.id).toBe(kept.id);
    expect((await assignments(`location=${a.id}`)).length).toBe(0);

    // Made and removed directly, seen from the prefix.
    const direct = await post('/api/ipam/prefix-location-assignments/', { prefix: prefix.id, location: a.id });
    expect(direct).toMatchObject({ object_type: 'ipam.prefixlocationassignment', prefix: { id: prefix.id }, location: { id: a.id } });
    const dup = await t().post('/api/ipam/prefix-location-assignments/', { prefix: prefix.id, location: a.id }).expect(400);
    expect(dup.body.non_field_errors).toEqual(['The fields prefix, location must make a unique set.']);
    await t().del(`/api/ipam/prefix-location-assignments/${kept.id}/`).expect(204);
    const read = (await t().get(`/api/ipam/prefixes/${prefix.id}/`).expect(200)).body;
    expect(read.locations.map((l: { id: string }) => l.id).sort()).toEqual([a.id, c.id].sort());

    // Deleted with the prefix and with a location.
    await t().del(`/api/dcim/locations/${c.id}/`).expect(204);
    expect((await assignments(`prefix=${prefix.id}`)).map((x) => x.location.id)).toEqual([a.id]);
    await t().del(`/api/ipam/prefixes/${prefix.id}/`).expect(204);
    expect((await assignments(`location=${a.id}`)).length).toBe(0);
  });

  it("keeps a VLAN's locations as assignments, shown as '<name> (<vid>): <location>'", async () => {
    const [a, b] = [await site('LON1'), await site('LON2')];
    const vlan = await post('/api/ipam/vlans/', { vid: 120, name: 'users', status: 'Active', locations: [a.id] });
    const made = await post('/api/ipam/vlan-location-assignments/', { vlan: vlan.id, location: b.id });
    expect(made.display).toBe('users (120): LON2');
    const list = (await t().get(`/api/ipam/vlan-location-assignments/?vlan=${vlan.id}&depth=1`).expect(200)).body.results;
    expect(list.map((x: { location: { name: string } }) => x.location.name).sort()).toEqual(['LON1', 'LON2']);
    expect((await t().get(`/api/ipam/vlans/${vlan.id}/`).expect(200)).body.locations.length).toBe(2);
    await t().patch(`/api/ipam/vlans/${vlan.id}/`, { locations: [] }).expect(200);
    expect((await t().get(`/api/ipam/vlan-location-assignments/?vlan=${vlan.id}`).expect(200)).body.count).toBe(0);
  });
});
