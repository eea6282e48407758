/** The locations the list-page and CPU benchmarks serve, seeded through netkeel's bulk API. */
import type { requester } from './support';

type Request = ReturnType<typeof requester>;
type Obj = Record<string, any>;

/** 2,000 tenants and 2,000 locations through the bulk API; site-1 a child of site-0, with two tags. */
export async function seed(one: Request): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const r = await one('POST', path, body);
    if (r.status !== 201) throw new Error(`${path}: ${r.status}: ${r.body.slice(0, 500)}`);
    return JSON.parse(r.body);
  };
  const type = await post('/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.location'], nestable: true });
  const group = await post('/api/tenancy/tenant-groups/', { name: 'Customers' });
  const t0 = Date.now();
  for (let b = 0; b < 4; b++) {
    await post('/api/tenancy/tenants/', Array.from({ length: 500 }, (_, i) => ({ name: `tenant-${b * 500 + i}`, tenant_group: group.id, description: 'benchmark tenant' })));
  }
  const tenantIds = JSON.parse((await one('GET', '/api/tenancy/tenants/?limit=1000')).body).results.map((x: Obj) => x.id);
  const t1 = Date.now();
  const locations: Obj[] = [];
  for (let b = 0; b < 4; b++) {
    const body = Array.from({ length: 500 }, (_, i) => ({ name: `site-${b * 500 + i}`, location_type: type.id, status: 'Active', tenant: tenantIds[i % tenantIds.length], facility: `F${i}` }));
    locations.push(...(await post('/api/dcim/locations/', body)));
  }
  const t2 = Date.now();
  const tags = [await post('/api/extras/tags/', { name: 'bench-z', content_types: ['dcim.location'] }), await post('/api/extras/tags/', { name: 'bench-a', content_types: ['dcim.location'] })];
  const r = await one('PATCH', `/api/dcim/locations/${locations[1].id}/`, { parent: locations[0].id, tags: tags.map((t) => t.id) });
  if (r.status !== 200) throw new Error(`PATCH: ${r.status}: ${r.body.slice(0, 500)}`);
  process.stdout.write(`seeded through netkeel: 2,000 tenants in ${t1 - t0} ms, 2,000 locations in ${t2 - t1} ms (bulk requests of 500)\n`);
}
