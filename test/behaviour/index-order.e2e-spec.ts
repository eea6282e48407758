import { eachDatabase } from '../../src/core/testing/harness';
import { outside } from '../support/outside';

/**
 * An unfiltered page of all rows is read in the order of the index that holds its ORDER BY
 * (MySQL/MariaDB: `orderIndexHint`, FORCE INDEX FOR ORDER BY, named as the database names it):
 * the same rows in the same order as the optimizer's own plan gives a filtered page, and still
 * answered when the index it named is gone.
 */
eachDatabase('pages read in an index order', (t) => {
  let type: any;
  const names = ['b', 'B', 'a', 'ä', 'Z', 'a-1', 'a_1', 'éclair', 'eclair', '10', '9', 'zz', 'Ω', 'ab', 'aB', 'Ab', 'AB', 'b2'];
  beforeAll(async () => {
    type = (await t().post('/api/dcim/location-types/', { name: 'Ordered', content_types: ['dcim.location'] }).expect(201)).body;
    await t().post('/api/dcim/locations/', names.map((name) => ({ name, location_type: type.id, status: 'Active' }))).expect(201);
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
  });

  it('answers the page when the index the hint named is gone (MySQL)', async () => {
    if (t().kind !== 'mysql') return;
    const all = await expected();
    expect(await ids('/api/dcim/locations/?limit=100')).toEqual(all); // the hint named
    const index = (await outside(t(), "SELECT INDEX_NAME AS n FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'dcim_location' AND COLUMN_NAME = '_name'")) as { n: string }[];
    expect(index).toHaveLength(1);
    await outside(t(), `ALTER TABLE \`dcim_location\` RENAME INDEX \`${index[0].n}\` TO \`moved_name_idx\``);
    try {
      expect(await ids('/api/dcim/locations/?limit=100')).toEqual(all);
      expect(await ids('/api/dcim/locations/?limit=100')).toEqual(all);
    } finally {
      await outside(t(), `ALTER TABLE \`dcim_location\` RENAME INDEX \`moved_name_idx\` TO \`${index[0].n}\``);
    }
  });
});
