import { ResourceRegistry } from '../../src/core/resource/registry';
import { eachDatabase } from '../../src/core/testing/harness';
import { compareSchema, describeDiff } from '../../src/database/schema/compare';
import { readSchema } from '../../src/database/schema/introspect';

/**
 * The schema the committed migrations make is the schema the declarations say: every table,
 * column (type, length, nullability, binary collation), key, index, foreign key and change
 * trigger. A declaration changed without `npm run migration:generate`, or a migration edited by
 * hand, fails here on the database where they part.
 */
eachDatabase('migrated schema', (t) => {
  it('is what the declarations say', async () => {
    const declared = t().app.get(ResourceRegistry).tables();
    const diff = compareSchema(declared, await readSchema(t().db), t().db.dialect.name);
    expect(describeDiff(diff)).toEqual([]);
  });
});
