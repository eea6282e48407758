import { ResourceRegistry } from '../../src/core/resource/registry';
import { eachDatabase } from '../../src/core/testing/harness';
import { eventually, outside } from '../support/outside';

/**
 * A detail's counts and many-to-many id lists are kept between requests on MySQL/MariaDB
 * (serialize/kept-values.ts): a detail reads its row and the change counts' sum of the tables
 * they come from, and uses what it kept only where that sum did not move. So every detail shows
 * what the database holds when it is read, whichever process wrote it, on every database: a
 * change made outside netkeel (another process) shows on the very next read, a delete that
 * reaches the links by a foreign key's cascade too, and a requester whose view of the counted
 * objects is constrained counts only what they may view.
 */
eachDatabase('counts and lists kept with a detail', (t) => {
  let location: any;
  let tags: any[];
  let type: any;
  const detail = async (key?: string) => (await t().get(`/api/dcim/locations/${location.id}/`, key).expect(200)).body;
  /**
   * The statements of a detail, once the requester's token is remembered (the API root then costs
   * none) and, on MySQL, the poller has found the triggers of the tables the values are read from
   * (the detail read meanwhile may be the one that keeps them).
   */
  const statements = async () => {
    expect(await eventually(async () => (await t().countStatements(() => t().get('/api/').expect(200))) === 0)).toBe(true);
    if (t().kind === 'mysql') {
      await detail(); // the first detail of a model has the feed watch the values' tables
      const registry = t().app.get(ResourceRegistry);
      const tables = registry.valueTables(registry.get('dcim.location')!)!;
      expect(tables).toEqual(expect.arrayContaining(['dcim_rack', 'extras_taggeditem', 'extras_tag']));
      expect(await eventually(async () => t().db.feed.counts(tables))).toBe(true);
    }
    let body: any;
    const n = await t().countStatements(async () => {
      body = await detail();
    });
    return { n, body };
  };
  const racks = async (n: number, prefix: string) =>
    (await t().post('/api/dcim/racks/', Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}`, location: location.id, status: 'Active' }))).expect(201)).body;

  beforeAll(async () => {
    type = (await t().post('/api/dcim/location-types/', { name: 'Kept values site', content_types: ['dcim.rack', 'ipam.prefix', 'circuits.circuittermination'] }).expect(201)).body;
    tags = (await t().post('/api/extras/tags/', ['kv-b', 'kv-a', 'kv-c'].map((name) => ({ name, content_types: ['dcim.location'] }))).expect(201)).body;
    location = (await t().post('/api/dcim/locations/', { name: 'kv', location_type: type.id, status: 'Active', tags: [tags[0].id, tags[1].id] }).expect(201)).body;
    await racks(2, 'kv-rack');
  });

  it('reads a detail again in one statement, the same body', async () => {
    const first = await statements();
    const again = await statements();
    expect(first.n).toBe(1);
    expect(again).toEqual({ n: 1, body: first.body });
    expect([again.body.rack_count, again.body.tags.map((x: any) => x.id)]).toEqual([2, [tags[1].id, tags[0].id]]);
  });

  it('shows a change made outside netkeel on the very next read', async () => {
    if (t().kind === 'pglite') return; // the process holding the data directory is its only writer
    await statements(); // kept (MySQL)
    const [rack] = await racks(1, 'kv-outside');
    await statements();
    // Another process moves a rack away and tags the location: no notification or poll waited for.
    await outside(t(), 'UPDATE "dcim_rack" SET "location_id" = $1 WHERE "id" = $2', [(await t().post('/api/dcim/locations/', { name: 'kv-other', location_type: type.id, status: 'Active' }).expect(201)).body.id, rack.id]);
    const [{ id: tagged }] = tags.slice(2);
    await outside(t(), 'INSERT INTO "extras_taggeditem" ("content_type", "object_id", "tag_id") VALUES ($1, $2, $3)', ['dcim.location', location.id, tagged]);
    const moved = await statements();
    expect([moved.body.rack_count, moved.body.tags.map((x: any) => x.id)]).toEqual([2, [tags[1].id, tags[0].id, tags[2].id]]);
    // MySQL: the kept values' sum moved, so the detail was read whole (a second statement), and kept again.
    expect(moved.n).toBe(t().kind === 'mysql' ? 2 : 1);
    expect(await statements()).toEqual({ n: 1, body: moved.body });
  });

  it('shows what a cascade removed (no trigger fires for its rows) on the very next read', async () => {
    if (t().kind === 'pglite') return;
    const tag = (await t().post('/api/extras/tags/', { name: 'kv-doomed', content_types: ['dcim.location'] }).expect(201)).body;
    await t().patch(`/api/dcim/locations/${location.id}/`, { tags: [...(await detail()).tags.map((x: any) => x.id), tag.id] }).expect(200);
    expect((await statements()).body.tags.map((x: any) => x.id)).toContain(tag.id);
    await statements();
    // InnoDB deletes the tag's links by the foreign key's cascade, which fires no trigger on them.
    await outside(t(), 'DELETE FROM "extras_tag" WHERE "id" = $1', [tag.id]);
    expect((await statements()).body.tags.map((x: any) => x.id)).toEqual([tags[1].id, tags[0].id, tags[2].id]);
    // A circuit's terminations go with it: the location's circuit count is read from them alone.
    const provider = (await t().post('/api/circuits/providers/', { name: 'kv-provider' }).expect(201)).body;
    const circuitType = (await t().post('/api/circuits/circuit-types/', { name: 'kv-type' }).expect(201)).body;
    const circuit = (await t().post('/api/circuits/circuits/', { cid: 'kv-1', provider: provider.id, circuit_type: circuitType.id, status: 'Active' }).expect(201)).body;
    await t().post('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', location: location.id }).expect(201);
    expect((await statements()).body.circuit_count).toBe(1);
    await statements();
    await outside(t(), 'DELETE FROM "circuits_circuit" WHERE "id" = $1', [circuit.id]);
    expect((await statements()).body.circuit_count).toBe(0);
  });

  it('uses nothing kept across counts lost: a sum that went down and came back to the kept one', async () => {
    if (t().kind !== 'mysql') return; // the counts are MySQL's
    const before = await statements(); // kept
    const epoch = t().db.feed.countsEpoch;
    // Count rows changed by hand (a backup restored, rows deleted): a row of another process's
    // connection (this process leaves its own out of its polls) made, then deleted once a poll
    // may have seen it, until a poll saw the tags' sum go down.
    const lost = async () => {
      await outside(t(), 'INSERT INTO "netkeel_change_counts" ("table_name", "slot", "changes") VALUES ($1, $2, $3)', ['extras_taggeditem', 987654321, 1]);
      await eventually(async () => (await t().get('/api/').expect(200), false), 600);
      await outside(t(), 'DELETE FROM "netkeel_change_counts" WHERE "slot" = $1', [987654321]);
      return eventually(async () => (await t().get('/api/').expect(200), t().db.feed.countsEpoch !== epoch), 1000);
    };
    expect(await eventually(lost, 10_000)).toBe(true);
    // A link made outside then brings the sum back to what was kept with the values: they are not used.
    const tag = (await t().post('/api/extras/tags/', { name: 'kv-aba', content_types: ['dcim.location'] }).expect(201)).body;
    await outside(t(), 'UPDATE "netkeel_change_counts" SET "changes" = "changes" - 1 WHERE "table_name" = $1 AND "changes" > 0 LIMIT 1', ['extras_tag']);
    await outside(t(), 'INSERT INTO "extras_taggeditem" ("content_type", "object_id", "tag_id") VALUES ($1, $2, $3)', ['dcim.location', location.id, tag.id]);
    await outside(t(), 'UPDATE "netkeel_change_counts" SET "changes" = "changes" - 1 WHERE "table_name" = $1 AND "changes" > 0 LIMIT 1', ['extras_taggeditem']);
    const after = await detail();
    expect(after.tags.map((x: any) => x.id).sort()).toEqual([...before.body.tags.map((x: any) => x.id), tag.id].sort());
    await t().patch(`/api/dcim/locations/${location.id}/`, { tags: before.body.tags.map((x: any) => x.id) }).expect(200);
  });

  it("shows this process's writes at once, through the API", async () => {
    await statements();
    const before = (await detail()).rack_count;
    const [rack] = await racks(1, 'kv-api');
    expect((await detail()).rack_count).toBe(before + 1);
    await t().del(`/api/dcim/racks/${rack.id}/`).expect(204);
    expect((await detail()).rack_count).toBe(before);
    await t().patch(`/api/dcim/locations/${location.id}/`, { tags: [tags[0].id] }).expect(200);
    expect((await detail()).tags.map((x: any) => x.id)).toEqual([tags[0].id]);
  });

  it('counts only what a requester with a constrained view may see, whatever another requester kept', async () => {
    await statements(); // kept for the superuser
    const all = (await detail()).rack_count;
    expect(all).toBeGreaterThan(1);
    const key = await t().userWith('kv-viewer', [
      { types: ['dcim.location', 'extras.tag'], actions: ['view'] },
      { types: ['dcim.rack'], actions: ['view'], constraints: { name: 'kv-rack-0' } },
    ]);
    expect((await detail(key)).rack_count).toBe(1);
    expect((await detail()).rack_count).toBe(all);
  });
});
