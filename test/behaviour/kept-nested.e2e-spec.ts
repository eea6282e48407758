import { eachDatabase } from '../../src/core/testing/harness';
import { eventually, outside } from '../support/outside';

/**
 * Objects a foreign key nests at depth 1 (a location's tenant, status, type) are kept between
 * requests where their models are watched (serialize/kept-nested.ts): a second page reads none of
 * them again, and yet every change shows: this process's at once, another process's when
 * PostgreSQL's notification or MySQL's next poll of the change counts brings it; a requester
 * whose view of them is constrained never gets what another requester's page kept.
 */
eachDatabase('nested objects kept between requests', (t) => {
  const page = '/api/dcim/locations/?limit=50&depth=1&name__isw=kept-';
  let tenants: any[];
  let tag: any;
  beforeAll(async () => {
    const type = (await t().post('/api/dcim/location-types/', { name: 'Kept site', content_types: ['dcim.location'] }).expect(201)).body;
    tenants = (await t().post('/api/tenancy/tenants/', [1, 2, 3].map((i) => ({ name: `kept-tenant-${i}` }))).expect(201)).body;
    tag = (await t().post('/api/extras/tags/', { name: 'kept-tag', content_types: ['tenancy.tenant'] }).expect(201)).body;
    const rows = Array.from({ length: 12 }, (_, i) => ({ name: `kept-${i}`, location_type: type.id, status: 'Active', tenant: tenants[i % 3].id }));
    await t().post('/api/dcim/locations/', rows).expect(201);
  });

  const tenantOf = (body: any, i: number) => body.results.find((r: any) => r.name === `kept-${i}`).tenant;
  const read = async (key?: string) => (await t().get(page, key).expect(200)).body;
  /** Reads the page until its nested objects are served kept: the token and the page statement at most. */
  const warm = async () => expect(await eventually(async () => (await t().countStatements(() => read())) <= 2)).toBe(true);

  it('serves the same page again without reading its nested objects', async () => {
    const first = await t().countStatements(() => read());
    let again = 0;
    let body: any;
    // Kept once every change until the read was heard (PostgreSQL: a ping; MySQL: a poll).
    const kept = async () => {
      again = await t().countStatements(async () => {
        body = await read();
      });
      // Every nested model's objects kept (the tenants', the location type's, the status's reads gone): each is kept when its read saw every change heard.
      return again <= first - 2;
    };
    expect(await eventually(kept)).toBe(true);
    expect(again).toBeLessThanOrEqual(first - 2); // the tenants', the location type's and the status's reads
    expect(tenantOf(body, 0)).toMatchObject({ id: tenants[0].id, name: 'kept-tenant-1', object_type: 'tenancy.tenant', display: 'kept-tenant-1', tenant_group: null });
    // What a requester whose view is constrained (to every one of them) gets, read cold, is the same.
    const all = await t().userWith('kept-all', [
      { types: ['dcim.location', 'dcim.locationtype', 'extras.status'], actions: ['view'] },
      { types: ['tenancy.tenant'], actions: ['view'], constraints: { name__isw: 'kept-tenant' } },
    ]);
    const cold = await read(all);
    expect(cold.results.map((r: any) => r.tenant)).toEqual(body.results.map((r: any) => r.tenant));
    expect(JSON.stringify(cold)).toBe(JSON.stringify(body));
  });

  it("shows this process's change to a nested object, its type and its custom fields on the next request", async () => {
    await warm();
    const first = await read();
    const body0 = () => first.results[0];
    await t().patch(`/api/tenancy/tenants/${tenants[1].id}/`, { description: 'changed here' }).expect(200);
    expect(tenantOf(await read(), 1).description).toBe('changed here');
    await warm();
    await t().post('/api/extras/custom-fields/', { key: 'kept_cf', label: 'Kept cf', type: 'text', content_types: ['tenancy.tenant'] }).expect(201);
    expect(tenantOf(await read(), 1).custom_fields).toEqual({ kept_cf: null });
    const type = body0().location_type;
    await warm();
    await t().patch(`/api/dcim/location-types/${type.id}/`, { description: 'type changed' }).expect(200);
    expect(tenantOf(await read(), 1)).toMatchObject({ description: 'changed here' });
    expect((await read()).results[0].location_type.description).toBe('type changed');
  });

  it('shows another process\'s change when it is heard (PostgreSQL: notified; MySQL: the next poll)', async () => {
    if (t().kind === 'pglite') return; // the process holding the data directory is its only writer
    await warm();
    await outside(t(), 'UPDATE "tenancy_tenant" SET "description" = $1 WHERE "id" = $2', ['changed outside', tenants[2].id]);
    expect(await eventually(async () => tenantOf(await read(), 2).description === 'changed outside')).toBe(true);
  });

  it('never gives a requester with a constrained view what another requester kept', async () => {
    const key = await t().userWith('kept-viewer', [
      { types: ['dcim.location', 'dcim.locationtype', 'extras.status'], actions: ['view'] },
      { types: ['tenancy.tenant'], actions: ['view'], constraints: { name: 'kept-tenant-1' } },
    ]);
    await warm(); // kept for the superuser
    const body = await read(key);
    expect(tenantOf(body, 0)).toMatchObject({ name: 'kept-tenant-1', description: expect.any(String) });
    // Hidden from this requester: a reference only.
    expect(tenantOf(body, 1)).toEqual({ id: tenants[1].id, object_type: 'tenancy.tenant', url: expect.stringContaining(`/api/tenancy/tenants/${tenants[1].id}/`) });
  });
});
