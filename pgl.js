const { PGlite } = require('@electric-sql/pglite');
(async () => {
  let t = Date.now();
  const pg = await PGlite.create();
  await pg.exec('create table x(id int primary key, b bytea, n int8, d timestamptz, j jsonb, u uuid)');
  await pg.query('insert into x values (1, $1, 5, now(), $2, gen_random_uuid())', [Buffer.from([1,2,255]), {a:1}]).catch(e=>console.log('err', e.message));
  await pg.query('insert into x values (2, $1, 5, now(), $2, null)', [Buffer.from([1,2,255]), {a:1}]);
  console.log((await pg.query('select *, count(*) over () c from x')).rows);
  const dump = await pg.dumpDataDir('none');
  console.log('create', Date.now() - t, dump.size);
  t = Date.now();
  const pg2 = await PGlite.create({ loadDataDir: dump });
  console.log('load', Date.now() - t, (await pg2.query('select count(*) from x')).rows);
  t = Date.now();
  const pg3 = await PGlite.create('/tmp/pgdisk'+Date.now());
  console.log('disk new', Date.now() - t);
})();
