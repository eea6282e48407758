import { eachDatabase } from '../../src/core/testing/harness';
import { outside } from '../support/outside';

/**
 * An unfiltered page of all rows is read in the order of the index that holds its ORDER BY
 * (MySQL/MariaDB: `orderIndexHint`, FORCE INDEX FOR ORDER BY, named as the database names it):
 * the same rows in the same order as the optimizer's own plan gives a filtered page, deep pages
 * (whose ids are read first) included, and still answered when the index it named is gone.
 */
eachDatabase('pages read in an index order', (t) => {
  let type: any;
  const names = ['b', 'B', 'a', 'ä', 'Z', 'a-1', 'a_1', 'éclair', 'eclair', '10', '9', 'zz', 'Ω', 'ab', 'aB', 'Ab', 'AB', 'b2'];
  // 1,010 namespaces for deep pages (offset >= 1,000), named so that their order is not their creation order.
  const made = Array.from({ length: 1010 }, (_, i) => ({ name: `deep ${(i * 7919) % 1010}` }));
  // Namespaces are ordered by name as it is ('deep 10' before 'deep 9'), in the binary collation;
  // 'Global' (made by a migration) comes first.
  const order = ['Global', ...made.map((m) => m.name).sort()];
  beforeAll(async () => {
    type = (await t().post('/api/dcim/location-types/', { name: 'Ordered', content_types: ['dcim.location'] }).expect(201)).body;
    await t().post('/api/dcim/locations/', names.map((name) => ({ name, location_type: type.id, status: 'Active' }))).expect(201);
    for (let i = 0; i < made.length; i += 505) await t().post('/api/ipam/namespaces/', made.slice(i, i + 505)).expect(201);
  });
  const ids = async (path: string) => (await t().get(path).expect(200)).body.results.map((r: any) => r.id);
  /** The filtered list's order (the filter matches every location): no hint. */
  const expected = () => ids(`/api/dcim/locations/?limit=100&location_type=${type.id}`);

  it('gives every page of the unfiltered list in the order of the filtered one', async () => {
    const all = await expected();
    expect(all).toHaveLength(names.length);
    const pages: string[] = [];
    for (let offset = 0; offset < names.length; offset += 6) pages.push(...(await ids(`/api/dcim/locations/?limit=6&offset=${offset}`)));
    expect(pages).toEqual(all);
    expect(await ids('/api/dcim/locations/?limit=1000')).toEqual(all);
    expect(await ids('/api/ipam/namespaces/?limit=10')).toEqual(await ids('/api/ipam/namespaces/?limit=10&name__ic='));
    expect(await ids('/api/ipam/namespaces/?limit=10&offset=995')).toEqual(await ids('/api/ipam/namespaces/?limit=10&offset=995&name__ic='));
  });

  it('gives deep pages (their ids read first) in the order of the filtered list', async () => {
    const names = (body: any) => body.results.map((r: any) => r.name);
    // `name__ic=` matches every namespace: the optimizer's own plan.
    const filtered = (await t().get('/api/ipam/namespaces/?limit=1000&offset=1000&name__ic=').expect(200)).body;
    expect(filtered.count).toBe(1011);
    expect(names(filtered)).toEqual(order.slice(1000));
    const unfiltered = (await t().get('/api/ipam/namespaces/?limit=1000&offset=1000').expect(200)).body;
    expect(unfiltered.count).toBe(1011);
    expect(unfiltered.results).toEqual(filtered.results);
    expect(names((await t().get('/api/ipam/namespaces/?limit=4&offset=1003').expect(200)).body)).toEqual(order.slice(1003, 1007));
    expect(names((await t().get('/api/ipam/namespaces/?limit=3&offset=1009').expect(200)).body)).toEqual(order.slice(1009));
  });

  it('answers the page when the index the hint named is gone (MySQL)', async () => {
    if (t().kind !== 'mysql') return;
    const all = await expected();
    expect(await ids('/api/dcim/locations/?limit=100')).toEqual(all); // the hint named
    const index = (await outside(t(), "SELECT INDEX_NAME AS n FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'dcim_location' AND COLUMN_NAME = '_name'")) as { n: string }[];
    expect(index).toHaveLength(1);
    const deep = await ids('/api/ipam/namespaces/?limit=5&offset=1002'); // a deep page's hint named
    const namespaceIndex = (await outside(t(), "SELECT INDEX_NAME AS n FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'ipam_namespace' AND COLUMN_NAME = 'name'")) as { n: string }[];
    expect(namespaceIndex).toHaveLength(1);
    expect(deep).toHaveLength(5);
    await outside(t(), `ALTER TABLE \`dcim_location\` RENAME INDEX \`${index[0].n}\` TO \`moved_name_idx\``);
    await outside(t(), `ALTER TABLE \`ipam_namespace\` RENAME INDEX \`${namespaceIndex[0].n}\` TO \`moved_namespace_name\``);
    try {
      expect(await ids('/api/dcim/locations/?limit=100')).toEqual(all);
      expect(await ids('/api/dcim/locations/?limit=100')).toEqual(all);
      expect(await ids('/api/ipam/namespaces/?limit=5&offset=1002')).toEqual(deep);
    } finally {
      await outside(t(), `ALTER TABLE \`ipam_namespace\` RENAME INDEX \`moved_namespace_name\` TO \`${namespaceIndex[0].n}\``);
      await outside(t(), `ALTER TABLE \`dcim_location\` RENAME INDEX \`moved_name_idx\` TO \`${index[0].n}\``);
    }
  });
});
