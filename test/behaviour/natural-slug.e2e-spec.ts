import { eachDatabase } from '../../src/core/testing/harness';

/**
 * natural_slug: the slugs of the natural key values joined by `_`, then the id's first four
 * characters; a tree's name, then its ancestors from the nearest up; a missing value left out.
 */
eachDatabase('natural_slug', (t) => {
  const post = async (url: string, body: object) => {
    const res = await t().post(url, body);
    if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** The object's natural_slug as its detail and a list page show it. */
  const slugs = async (obj: { id: string; url: string }) => {
    const path = new URL(obj.url).pathname;
    const detail = (await t().get(path).expect(200)).body.natural_slug;
    const list = (await t().get(`${path.replace(`${obj.id}/`, '')}?id=${obj.id}`).expect(200)).body.results[0].natural_slug;
    return [detail, list];
  };
  const tail = (o: { id: string }) => o.id.slice(0, 4);

  it('names a tree object by its name and its ancestors, nearest first', async () => {
    const region = await post('/api/dcim/location-types/', { name: 'Region' });
    const site = await post('/api/dcim/location-types/', { name: 'Site', parent: region.id });
    const floor = await post('/api/dcim/location-types/', { name: 'Floor', parent: site.id });
    const eu = await post('/api/dcim/locations/', { name: 'EU West', location_type: region.id, status: 'Active' });
    const ams = await post('/api/dcim/locations/', { name: 'AMS 1', location_type: site.id, parent: eu.id, status: 'Active' });
    const f1 = await post('/api/dcim/locations/', { name: 'F.1', location_type: floor.id, parent: ams.id, status: 'Active' });
    expect(await slugs(eu)).toEqual(Array(2).fill(`eu-west_${tail(eu)}`));
    expect(await slugs(ams)).toEqual(Array(2).fill(`ams-1_eu-west_${tail(ams)}`));
    expect(await slugs(f1)).toEqual(Array(2).fill(`f-1_ams-1_eu-west_${tail(f1)}`));
  });

  it('slugs names, related names and addresses, and leaves out a missing value', async () => {
    const tenant = await post('/api/tenancy/tenants/', { name: 'Acme Corp.' });
    expect(await slugs(tenant)).toEqual(Array(2).fill(`acme-corp_${tail(tenant)}`));
    const bare = await post('/api/ipam/vrfs/', { name: 'no-rd' });
    expect(await slugs(bare)).toEqual(Array(2).fill(`global_${tail(bare)}`));
    const vrf = await post('/api/ipam/vrfs/', { name: 'with-rd', rd: '65000:1' });
    expect(await slugs(vrf)).toEqual(Array(2).fill(`global_65000-1_${tail(vrf)}`));
    const prefix = await post('/api/ipam/prefixes/', { prefix: '10.0.50.0/24', status: 'Active' });
    expect(await slugs(prefix)).toEqual(Array(2).fill(`global_10-0-50-0_24_${tail(prefix)}`));
    const address = await post('/api/ipam/ip-addresses/', { address: '10.0.50.1/24', namespace: 'Global', status: 'Active' });
    expect(await slugs(address)).toEqual(Array(2).fill(`global_10-0-50-1_${tail(address)}`));
  });

  it('names an object keyed by its id by the id', async () => {
    const vlan = await post('/api/ipam/vlans/', { vid: 100, name: 'users', status: 'Active' });
    expect(await slugs(vlan)).toEqual(Array(2).fill(`${vlan.id}_${tail(vlan)}`));
  });
});
