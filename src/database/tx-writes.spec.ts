import { TxWrites, writtenTable } from './tx-writes';

describe('what a transaction wrote (TxWrites)', () => {
  it('tells the table a statement puts rows into or changes, on either quoting', () => {
    const fills = (table: string) => ({ table, deletes: false });
    expect(writtenTable('INSERT INTO "dcim_location" ("id") SELECT * FROM unnest($1::uuid[])')).toEqual(fills('dcim_location'));
    expect(writtenTable('INSERT INTO `extras_objectchange` (`id`) VALUES (?)')).toEqual(fills('extras_objectchange'));
    expect(writtenTable('UPDATE "dcim_device" SET "virtual_chassis_id" = $1 WHERE "id" = $2')).toEqual(fills('dcim_device'));
    expect(writtenTable('UPDATE `circuits_circuit` `c` SET `c`.`x` = ?')).toEqual(fills('circuits_circuit'));
    expect(writtenTable('  update "t" AS "a" set "x" = 1')).toEqual(fills('t'));
  });

  it('tells a delete apart: it writes its table and puts no row in any', () => {
    expect(writtenTable('DELETE FROM "dcim_location" WHERE "id" = ANY($1)')).toEqual({ table: 'dcim_location', deletes: true });
    expect(writtenTable('DELETE FROM `t` `x` WHERE `x`.`id` IN (?)')).toEqual({ table: 't', deletes: true });
    expect(writtenTable('DELETE `t` FROM `t` JOIN `u` ON `u`.`id` = `t`.`u_id`')).toEqual({ table: null, deletes: true });
    expect(writtenTable('WITH gone AS (DELETE FROM "t" RETURNING 1) SELECT COUNT(*) FROM gone')).toEqual({ table: null, deletes: true });
  });

  it('counts reads, locking reads and transaction control as writing nothing', () => {
    for (const text of [
      'SELECT * FROM "dcim_location" WHERE "id" = ANY($1)',
      'SELECT "id" FROM `dcim_location` WHERE `id` IN (?) FOR UPDATE',
      'SELECT "id" FROM "t" FOR NO KEY UPDATE SKIP LOCKED',
      'WITH RECURSIVE up AS (SELECT 1) SELECT * FROM up',
      'START TRANSACTION',
      'SET TRANSACTION ISOLATION LEVEL READ COMMITTED',
    ]) {
      expect([text, writtenTable(text)]).toEqual([text, undefined]);
    }
  });

  it('counts a write whose table it cannot tell as writing any table', () => {
    for (const text of [
      'WITH moved AS (UPDATE "a" SET "x" = 1 RETURNING "id") SELECT * FROM moved',
      'UPDATE `a` JOIN `b` ON `b`.`id` = `a`.`b_id` SET `b`.`x` = 1',
      'REPLACE INTO `t` (`id`) VALUES (?)',
      'TRUNCATE "t"',
      'DELETE FROM "t" WHERE "id" IN (SELECT 1) RETURNING (INSERT INTO "u" VALUES (1))',
    ]) {
      expect([text, writtenTable(text)]).toEqual([text, { table: null, deletes: false }]);
    }
  });

  it('knows related rows are none only for objects it created, in tables no statement of it wrote', () => {
    const w = new TxWrites();
    w.statement('INSERT INTO "dcim_location" ("id") VALUES ($1)');
    w.noteCreated('dcim_location', ['a', 'b']);
    expect(w.noneRelated('dcim_location', ['a', 'b'], ['extras_taggeditem', 'dcim_device'])).toBe(true);
    // An object it did not create, none at all, or a table it wrote: not known.
    expect(w.noneRelated('dcim_location', ['a', 'c'], ['dcim_device'])).toBe(false);
    expect(w.noneRelated('dcim_location', [], ['dcim_device'])).toBe(false);
    expect(w.noneRelated('dcim_location', ['a'], ['dcim_location'])).toBe(false);
    expect(w.noneRelated('tenancy_tenant', ['a'], ['dcim_device'])).toBe(false);
    // Deleting puts no row anywhere.
    w.statement('DELETE FROM "dcim_device" WHERE "id" = $1');
    w.statement('DELETE `extras_taggeditem` FROM `extras_taggeditem` JOIN `x` ON 1');
    expect(w.noneRelated('dcim_location', ['a', 'b'], ['extras_taggeditem', 'dcim_device'])).toBe(true);
    w.statement('UPDATE "dcim_device" SET "location_id" = $1');
    expect(w.noneRelated('dcim_location', ['a'], ['dcim_device'])).toBe(false);
    expect(w.noneRelated('dcim_location', ['a'], ['extras_taggeditem'])).toBe(true);
    w.statement('WITH x AS (INSERT INTO "q" VALUES (1) RETURNING 1) SELECT 1');
    expect(w.noneRelated('dcim_location', ['a'], ['extras_taggeditem'])).toBe(false);
  });

  it('gives rows a read found again while no statement since may have written their table', () => {
    const w = new TxWrites();
    const rows = [{ id: 'a', name: 'A' }, { id: 'b', name: 'B' }];
    w.remember('dcim_location', w.mark(), rows);
    expect(w.remembered('dcim_location', ['b', 'a'])).toEqual([rows[1], rows[0]]);
    // Not all of them found, or another table: not known.
    expect(w.remembered('dcim_location', ['a', 'c'])).toBeUndefined();
    expect(w.remembered('tenancy_tenant', ['a'])).toBeUndefined();
    w.statement('INSERT INTO "extras_objectchange" ("id") VALUES ($1)');
    w.statement('DELETE FROM "tenancy_tenant" WHERE "id" = $1');
    expect(w.remembered('dcim_location', ['a'])).toEqual([rows[0]]);
    w.statement('DELETE FROM "dcim_location" WHERE "id" = $1');
    expect(w.remembered('dcim_location', ['a'])).toBeUndefined();
    w.remember('dcim_location', w.mark(), rows);
    w.statement('UPDATE "dcim_location" SET "name" = $1');
    expect(w.remembered('dcim_location', ['a'])).toBeUndefined();
    // A read that began before a write (queued behind it) is not trusted past it.
    const at = w.mark();
    w.statement('UPDATE "dcim_location" SET "name" = $1');
    w.remember('dcim_location', at, rows);
    expect(w.remembered('dcim_location', ['a'])).toBeUndefined();
    w.remember('dcim_location', w.mark(), rows);
    expect(w.remembered('dcim_location', ['a'])).toEqual([rows[0]]);
    w.statement('WITH x AS (UPDATE "q" SET "a" = 1 RETURNING 1) SELECT 1');
    expect(w.remembered('dcim_location', ['a'])).toBeUndefined();
  });
});
