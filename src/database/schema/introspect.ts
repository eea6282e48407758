import type { Executor, Row } from '../db';
import { sql } from '../sql';
import { CHANGE_COUNTS_TABLE, mysqlChangeTriggers, pgTriggerName } from './names';
import type { ColumnSchema, OnDelete, StorageType, TableSchema } from './schema';

/** A column as read back, with the collation of text columns (binary on every database). */
export interface ReadColumn extends ColumnSchema {
  collation?: string | null;
}

export interface ReadTable extends TableSchema {
  columns: ReadColumn[];
}

/** TypeORM's own bookkeeping and the change counts of MySQL's triggers: not part of the declared schema. */
const IGNORED = new Set(['migrations', 'typeorm_metadata', CHANGE_COUNTS_TABLE]);

const ON_DELETE: Record<string, OnDelete> = { a: 'restrict', r: 'restrict', c: 'cascade', n: 'setNull', RESTRICT: 'restrict', 'NO ACTION': 'restrict', CASCADE: 'cascade', 'SET NULL': 'setNull' };

/** The schema the database has now, in the terms of the declarations (schema.ts). */
export async function readSchema(exec: Executor): Promise<Map<string, ReadTable>> {
  return exec.dialect.name === 'postgres' ? readPostgres(exec) : readMysql(exec);
}

function table(tables: Map<string, ReadTable>, name: string): ReadTable {
  let t = tables.get(name);
  if (!t) tables.set(name, (t = { name, columns: [], primaryKey: [], indexes: [], foreignKeys: [] }));
  return t;
}

async function readPostgres(exec: Executor): Promise<Map<string, ReadTable>> {
  const tables = new Map<string, ReadTable>();
  const cols = await exec.query(sql`SELECT c.table_name AS t, c.column_name AS c, c.data_type AS dt, c.character_maximum_length AS len,
      c.numeric_precision AS p, c.numeric_scale AS s, c.is_nullable AS nul, c.collation_name AS coll
    FROM information_schema.columns c JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND tb.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`);
  const types: Record<string, StorageType> = {
    uuid: 'uuid', 'character varying': 'string', text: 'text', integer: 'integer', bigint: 'bigint', smallint: 'integer', numeric: 'decimal',
    boolean: 'boolean', date: 'date', 'timestamp with time zone': 'datetime', jsonb: 'json', json: 'json', bytea: 'bytes',
  };
  for (const r of cols) {
    if (IGNORED.has(r.t)) continue;
    const type = types[r.dt] ?? (`unknown:${r.dt}` as StorageType);
    const c: ReadColumn = { name: r.c, type, nullable: r.nul === 'YES' };
    if (type === 'string') c.length = Number(r.len);
    if (type === 'decimal') Object.assign(c, { precision: Number(r.p), scale: Number(r.s) });
    if (type === 'string' || type === 'text') c.collation = r.coll ?? null;
    table(tables, r.t).columns.push(c);
  }
  const idx = await exec.query(sql`SELECT t.relname AS t, i.relname AS n, ix.indisunique AS u, ix.indisprimary AS pk,
      array_to_string(ARRAY(SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord), ',') AS cols,
      (ix.indpred IS NOT NULL OR ix.indexprs IS NOT NULL) AS special
    FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_class i ON i.oid = ix.indexrelid
    JOIN pg_namespace ns ON ns.oid = t.relnamespace WHERE ns.nspname = current_schema() ORDER BY t.relname, i.relname`);
  for (const r of idx) {
    if (IGNORED.has(r.t)) continue;
    const columns = String(r.cols).split(',');
    if (r.pk) table(tables, r.t).primaryKey = columns;
    else table(tables, r.t).indexes.push({ name: r.n, columns: r.special ? [`(expression) ${r.n}`] : columns, unique: !!r.u });
  }
  const fks = await exec.query(sql`SELECT cl.relname AS t, con.conname AS n, a.attname AS c, rt.relname AS rt, con.confdeltype AS d
    FROM pg_constraint con JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_class rt ON rt.oid = con.confrelid
    JOIN pg_namespace ns ON ns.oid = cl.relnamespace JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = con.conkey[1]
    WHERE con.contype = 'f' AND ns.nspname = current_schema() ORDER BY cl.relname, con.conname`);
  for (const r of fks) table(tables, r.t).foreignKeys.push({ name: r.n, column: r.c, table: r.rt, onDelete: ON_DELETE[String(r.d)] ?? 'restrict' });
  const triggers = await exec.query(sql`SELECT c.relname AS t, tg.tgname AS n FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid
    JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = current_schema() AND NOT tg.tgisinternal`);
  for (const r of triggers) if (tables.has(r.t) && r.n === pgTriggerName(r.t)) tables.get(r.t)!.watched = true;
  return tables;
}

async function readMysql(exec: Executor): Promise<Map<string, ReadTable>> {
  const tables = new Map<string, ReadTable>();
  // MariaDB's JSON is longtext with a json_valid() check.
  const checks = await exec.query(sql`SELECT TABLE_NAME AS t, CHECK_CLAUSE AS cl FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()`).catch(() => [] as Row[]);
  const jsonCols = new Set(checks.flatMap((r) => [...String(r.cl).matchAll(/json_valid\(`([^`]+)`\)/gi)].map((m) => `${r.t}.${m[1]}`)));
  const cols = await exec.query(sql`SELECT c.TABLE_NAME AS t, c.COLUMN_NAME AS c, c.DATA_TYPE AS dt, c.COLUMN_TYPE AS ct, c.CHARACTER_MAXIMUM_LENGTH AS len,
      c.NUMERIC_PRECISION AS p, c.NUMERIC_SCALE AS s, c.IS_NULLABLE AS nul, c.COLLATION_NAME AS coll
    FROM information_schema.COLUMNS c JOIN information_schema.TABLES tb ON tb.TABLE_SCHEMA = c.TABLE_SCHEMA AND tb.TABLE_NAME = c.TABLE_NAME
    WHERE c.TABLE_SCHEMA = DATABASE() AND tb.TABLE_TYPE = 'BASE TABLE' ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`);
  for (const r of cols) {
    if (IGNORED.has(r.t)) continue;
    const dt = String(r.dt).toLowerCase();
    const ct = String(r.ct).toLowerCase();
    let type: StorageType;
    if (dt === 'char' && Number(r.len) === 36) type = 'uuid';
    else if (dt === 'varchar') type = 'string';
    else if (dt === 'json' || (dt === 'longtext' && jsonCols.has(`${r.t}.${r.c}`))) type = 'json';
    else if (dt === 'longtext' || dt === 'text') type = 'text';
    else if (dt === 'int') type = 'integer';
    else if (dt === 'bigint') type = 'bigint';
    else if (dt === 'decimal') type = 'decimal';
    else if (dt === 'tinyint' && ct.startsWith('tinyint(1)')) type = 'boolean';
    else if (dt === 'date') type = 'date';
    else if (dt === 'datetime') type = 'datetime';
    else if (dt === 'varbinary') type = 'bytes';
    else if (dt === 'longblob') type = 'blob';
    else type = `unknown:${ct}` as StorageType;
    const c: ReadColumn = { name: r.c, type, nullable: r.nul === 'YES' };
    if (type === 'string' || type === 'bytes') c.length = Number(r.len);
    if (type === 'decimal') Object.assign(c, { precision: Number(r.p), scale: Number(r.s) });
    if (type === 'string' || type === 'text') c.collation = r.coll ?? null;
    table(tables, r.t).columns.push(c);
  }
  const idx = await exec.query(sql`SELECT TABLE_NAME AS t, INDEX_NAME AS n, NON_UNIQUE AS nu, COLUMN_NAME AS c, SEQ_IN_INDEX AS seq
    FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`);
  const byIndex = new Map<string, { t: string; n: string; unique: boolean; columns: string[] }>();
  for (const r of idx) {
    if (IGNORED.has(r.t)) continue;
    const key = `${r.t}.${r.n}`;
    if (!byIndex.has(key)) byIndex.set(key, { t: r.t, n: r.n, unique: Number(r.nu) === 0, columns: [] });
    byIndex.get(key)!.columns.push(r.c);
  }
  for (const i of byIndex.values()) {
    if (i.n === 'PRIMARY') table(tables, i.t).primaryKey = i.columns;
    else table(tables, i.t).indexes.push({ name: i.n, columns: i.columns, unique: i.unique });
  }
  const fks = await exec.query(sql`SELECT k.TABLE_NAME AS t, k.CONSTRAINT_NAME AS n, k.COLUMN_NAME AS c, k.REFERENCED_TABLE_NAME AS rt, r.DELETE_RULE AS d
    FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.REFERENTIAL_CONSTRAINTS r
      ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME
    WHERE k.TABLE_SCHEMA = DATABASE() AND k.REFERENCED_TABLE_NAME IS NOT NULL ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME`);
  for (const r of fks) table(tables, r.t).foreignKeys.push({ name: r.n, column: r.c, table: r.rt, onDelete: ON_DELETE[String(r.d)] ?? 'restrict' });
  // Watched: the table has its three counting triggers (ddl.ts, `watch`).
  const triggers = await exec.query(sql`SELECT EVENT_OBJECT_TABLE AS t, TRIGGER_NAME AS n, EVENT_MANIPULATION AS e FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()`);
  const present = new Set(triggers.map((r) => `${r.t}\n${r.n}\n${String(r.e).toLowerCase()}`));
  for (const t of tables.values()) t.watched = mysqlChangeTriggers(t.name).every((tr) => present.has(`${t.name}\n${tr.name}\n${tr.event}`)) || undefined;
  return tables;
}
