import { eachDatabase } from '../../src/core/testing/harness';
import { eventually, outside } from '../support/outside';

/**
 * A watched tree's ancestor chains (display "A → B → C", tree_depth, natural_slug) are kept
 * between requests by object id (serialize/kept-ancestry.ts): a detail whose chain is kept reads
 * no ancestry, and yet every change shows: this process's at once, another process's when it is
 * heard; a requester whose view is constrained never gets a chain another requester's read kept.
 */
eachDatabase('ancestor chains kept between requests', (t) => {
  let type: any;
  /** A chain of 11 locations, k0 (the root) to k10: deeper than the eight ancestors MariaDB's detail statement joins. */
  const chain: any[] = [];
  const names = (n: number) => Array.from({ length: n + 1 }, (_, i) => `k${i}`);
  beforeAll(async () => {
    type = (await t().post('/api/dcim/location-types/', { name: 'Kept tree', nestable: true, content_types: ['dcim.location'] }).expect(201)).body;
    for (let i = 0; i < 11; i++) {
      chain.push((await t().post('/api/dcim/locations/', { name: `k${i}`, location_type: type.id, status: 'Active', parent: chain[i - 1]?.id ?? null }).expect(201)).body);
    }
  });
  const detail = async (i: number, key?: string) => (await t().get(`/api/dcim/locations/${chain[i].id}/`, key).expect(200)).body;
  const shown = (o: any) => [o.display, o.tree_depth, o.natural_slug];
  /** Reads the deepest's detail (which keeps its chain) until it is one statement. */
  const warm = async () => expect(await eventually(async () => (await t().countStatements(() => detail(10))) === 1)).toBe(true);

  it('reads a detail whose chain is kept in one statement, as a cold read shows it', async () => {
    await warm();
    let body: any;
    expect(await t().countStatements(async () => (body = await detail(10)))).toBe(1);
    expect(shown(body)).toEqual([names(10).join(' → '), 10, `k10_k9_k8_k7_k6_k5_k4_k3_k2_k1_k0_${chain[10].id.slice(0, 4)}`]);
    // A requester whose view is constrained (to every location) reads it cold: the same object.
    const all = await t().userWith('kept-tree-all', [
      { types: ['dcim.location'], actions: ['view'], constraints: { name__isw: 'k' } },
      { types: ['dcim.locationtype', 'extras.status'], actions: ['view'] },
    ]);
    expect(await detail(10, all)).toEqual(body);
    // Cold, MariaDB reads the ancestry of an object deeper than eight by a statement of its own.
    await t().patch(`/api/dcim/locations/${chain[0].id}/`, { description: 'cold again' }).expect(200);
    expect(await t().countStatements(() => detail(10))).toBe(t().kind === 'mysql' ? 2 : 1);
  });

  it("shows this process's renames and moves on the next request", async () => {
    await warm();
    await t().patch(`/api/dcim/locations/${chain[2].id}/`, { name: 'k2 renamed' }).expect(200);
    expect((await detail(10)).display).toBe(names(10).join(' → ').replace('k2', 'k2 renamed'));
    await warm();
    // k5 moves under k0: k10's chain loses k1..k4.
    await t().patch(`/api/dcim/locations/${chain[5].id}/`, { parent: chain[0].id }).expect(200);
    expect(shown(await detail(10)).slice(0, 2)).toEqual(['k0 → k5 → k6 → k7 → k8 → k9 → k10', 6]);
    await t().patch(`/api/dcim/locations/${chain[5].id}/`, { parent: chain[4].id }).expect(200);
    await t().patch(`/api/dcim/locations/${chain[2].id}/`, { name: 'k2' }).expect(200);
    expect((await detail(10)).display).toBe(names(10).join(' → '));
  });

  it("shows another process's rename when it is heard (PostgreSQL: notified; MySQL: the next poll)", async () => {
    if (t().kind === 'pglite') return; // the process holding the data directory is its only writer
    await warm();
    await outside(t(), 'UPDATE "dcim_location" SET "name" = $1 WHERE "id" = $2', ['k1 outside', chain[1].id]);
    try {
      expect(await eventually(async () => (await detail(10)).display.startsWith('k0 → k1 outside → k2'))).toBe(true);
    } finally {
      await t().patch(`/api/dcim/locations/${chain[1].id}/`, { name: 'k1' }).expect(200);
    }
  });

  it('never gives a requester with a constrained view a chain another requester kept', async () => {
    const key = await t().userWith('kept-tree-viewer', [
      // Every location but k3: its name is hidden from this requester.
      { types: ['dcim.location'], actions: ['view'], constraints: { id__n: [chain[3].id] } },
      { types: ['dcim.locationtype', 'extras.status'], actions: ['view'] },
    ]);
    await warm(); // kept for the superuser
    const body = await detail(10, key);
    expect(body.display).toBe(names(10).filter((n) => n !== 'k3').join(' → '));
    expect(body.tree_depth).toBe(10);
  });
});
