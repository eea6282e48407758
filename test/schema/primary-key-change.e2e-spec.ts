import { randomUUID } from 'node:crypto';
import { eachDatabase } from '../../src/core/testing/harness';
import { compareSchema, describeDiff } from '../../src/database/schema/compare';
import { Ddl } from '../../src/database/schema/ddl';
import { readSchema } from '../../src/database/schema/introspect';
import type { TableSchema } from '../../src/database/schema/schema';
import { raw } from '../../src/database/sql';

/**
 * The one primary key change the migration generator writes: a link table that becomes a model's
 * own table (a through model with an id, as the prefix and VLAN location assignments became).
 * Upgrading keeps every link, gives each a distinct id, keeps the old key as a unique key, and
 * the down migration gives the old table back with its rows.
 */
eachDatabase('a link table becoming a through model', (t) => {
  const parent = (name: string): TableSchema => ({ name, columns: [{ name: 'id', type: 'uuid', nullable: false }], primaryKey: ['id'], indexes: [], foreignKeys: [] });
  const fks = [
    { column: 'a_id', table: 'zz_pk_a', onDelete: 'cascade' as const },
    { column: 'b_id', table: 'zz_pk_b', onDelete: 'cascade' as const },
  ];
  const link: TableSchema = {
    name: 'zz_pk_link',
    columns: [
      { name: 'a_id', type: 'uuid', nullable: false },
      { name: 'b_id', type: 'uuid', nullable: false },
    ],
    primaryKey: ['a_id', 'b_id'],
    indexes: [{ columns: ['b_id'], unique: false }],
    foreignKeys: fks,
  };
  const model: TableSchema = {
    ...link,
    columns: [{ name: 'id', type: 'uuid', nullable: false }, { name: 'created', type: 'datetime', nullable: false }, { name: 'last_updated', type: 'datetime', nullable: false }, ...link.columns],
    primaryKey: ['id'],
    indexes: [{ columns: ['a_id', 'b_id'], unique: true }, { columns: ['b_id'], unique: false }],
  };
  const ours = ['zz_pk_a', 'zz_pk_b', 'zz_pk_link'];

  it('keeps every link, with a distinct id each, and comes back down with its rows', async () => {
    const db = t().db;
    const ddl = new Ddl(db.dialect.name);
    const run = async (statements: string[]) => {
      for (const s of statements) await db.execute(raw(s));
    };
    const diffTo = async (declared: TableSchema[]) => {
      const actual = new Map([...(await readSchema(db))].filter(([name]) => ours.includes(name)));
      return compareSchema(declared, actual, db.dialect.name);
    };
    const q = (id: string) => (db.dialect.name === 'mysql' ? `\`${id}\`` : `"${id}"`);
    const rows = async () => (await db.query<{ a_id: string; b_id: string }>(raw(`SELECT ${q('a_id')}, ${q('b_id')} FROM ${q('zz_pk_link')} ORDER BY ${q('a_id')}, ${q('b_id')}`))).map((r) => `${r.a_id}|${r.b_id}`);

    // The old link table, with rows.
    await run(ddl.render(await diffTo([parent('zz_pk_a'), parent('zz_pk_b'), link])).up);
    const [a1, a2, b1, b2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()].sort();
    await run([`INSERT INTO ${q('zz_pk_a')} (${q('id')}) VALUES ('${a1}'), ('${a2}')`, `INSERT INTO ${q('zz_pk_b')} (${q('id')}) VALUES ('${b1}'), ('${b2}')`]);
    await run([`INSERT INTO ${q('zz_pk_link')} (${q('a_id')}, ${q('b_id')}) VALUES ('${a1}', '${b1}'), ('${a1}', '${b2}'), ('${a2}', '${b1}')`]);
    const before = await rows();

    const upgrade = ddl.render(await diffTo([parent('zz_pk_a'), parent('zz_pk_b'), model]));
    await run(upgrade.up);
    expect(describeDiff(await diffTo([parent('zz_pk_a'), parent('zz_pk_b'), model]))).toEqual([]);
    expect(await rows()).toEqual(before);
    const ids = await db.query<{ id: string; created: unknown }>(raw(`SELECT ${q('id')}, ${q('created')} FROM ${q('zz_pk_link')}`));
    expect(new Set(ids.map((r) => String(r.id))).size).toBe(3);
    for (const r of ids) expect({ id: String(r.id), created: r.created !== null }).toEqual({ id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), created: true });
    // The old key is a unique key now.
    await expect(run([`INSERT INTO ${q('zz_pk_link')} (${q('id')}, ${q('created')}, ${q('last_updated')}, ${q('a_id')}, ${q('b_id')}) VALUES ('${randomUUID()}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, '${a1}', '${b1}')`])).rejects.toThrow();

    await run(upgrade.down);
    expect(describeDiff(await diffTo([parent('zz_pk_a'), parent('zz_pk_b'), link]))).toEqual([]);
    expect(await rows()).toEqual(before);
    await run([`DROP TABLE ${q('zz_pk_link')}`, `DROP TABLE ${q('zz_pk_a')}`, `DROP TABLE ${q('zz_pk_b')}`]);
  });

  it('refuses any other primary key change', async () => {
    const ddl = new Ddl(t().db.dialect.name);
    const other: TableSchema = { ...link, primaryKey: ['b_id', 'a_id'] };
    const diff = compareSchema([other], new Map([['zz_pk_link', { ...link, columns: link.columns }]]), t().db.dialect.name);
    expect(() => ddl.render(diff)).toThrow(/changing a primary key is not generated/);
  });
});
