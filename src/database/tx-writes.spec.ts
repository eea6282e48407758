import { TxWrites, writtenTable } from './tx-writes';

describe('what a transaction wrote (TxWrites)', () => {
  it('tells the table a statement puts rows into or changes, on either quoting', () => {
    expect(writtenTable('INSERT INTO "dcim_location" ("id") SELECT * FROM unnest($1::uuid[])')).toBe('dcim_location');
    expect(writtenTable('INSERT INTO `extras_objectchange` (`id`) VALUES (?)')).toBe('extras_objectchange');
    expect(writtenTable('UPDATE "dcim_device" SET "virtual_chassis_id" = $1 WHERE "id" = $2')).toBe('dcim_device');
    expect(writtenTable('UPDATE `circuits_circuit` `c` SET `c`.`x` = ?')).toBe('circuits_circuit');
    expect(writtenTable('  update "t" AS "a" set "x" = 1')).toBe('t');
  });

  it('counts reads, locking reads, deletes and transaction control as writing nothing', () => {
    for (const text of [
      'SELECT * FROM "dcim_location" WHERE "id" = ANY($1)',
      'SELECT "id" FROM `dcim_location` WHERE `id` IN (?) FOR UPDATE',
      'SELECT "id" FROM "t" FOR NO KEY UPDATE SKIP LOCKED',
      'WITH RECURSIVE up AS (SELECT 1) SELECT * FROM up',
      'DELETE FROM "dcim_location" WHERE "id" = ANY($1)',
      'DELETE `t` FROM `t` JOIN `u` ON `u`.`id` = `t`.`u_id`',
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
      expect([text, writtenTable(text)]).toEqual([text, null]);
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
    w.statement('UPDATE "dcim_device" SET "location_id" = $1');
    expect(w.noneRelated('dcim_location', ['a'], ['dcim_device'])).toBe(false);
    expect(w.noneRelated('dcim_location', ['a'], ['extras_taggeditem'])).toBe(true);
    w.statement('WITH x AS (INSERT INTO "q" VALUES (1) RETURNING 1) SELECT 1');
    expect(w.noneRelated('dcim_location', ['a'], ['extras_taggeditem'])).toBe(false);
  });
});
