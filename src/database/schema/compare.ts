import type { DialectName } from '../dialect';
import type { ReadColumn, ReadTable } from './introspect';
import type { ColumnSchema, ForeignKeySchema, IndexSchema, TableSchema } from './schema';

/** What differs in one table between the declarations and the database. */
export interface TableDiff {
  table: string;
  /** The table as declared. */
  declared: TableSchema;
  addColumns: ColumnSchema[];
  /** Declared form of columns whose type, length or nullability differ. */
  alterColumns: { declared: ColumnSchema; actual: ReadColumn }[];
  dropColumns: string[];
  /** Text columns whose collation is not the binary one (ordering and comparison would differ between databases). */
  collation: string[];
  primaryKey?: { declared: string[]; actual: string[] };
  addIndexes: IndexSchema[];
  dropIndexes: IndexSchema[];
  addForeignKeys: ForeignKeySchema[];
  dropForeignKeys: ForeignKeySchema[];
  /** The change-notification trigger: to add (true) or remove (false). */
  watch?: boolean;
}

export interface SchemaDiff {
  createTables: TableSchema[];
  dropTables: string[];
  tables: TableDiff[];
}

const BINARY = { postgres: 'C', mysql: 'utf8mb4_bin' } as const;
const indexKey = (i: IndexSchema) => `${i.unique ? 'u' : 'i'}:${i.columns.join(',')}`;
const fkKey = (f: ForeignKeySchema) => `${f.column}->${f.table}:${f.onDelete}`;

function sameColumn(d: ColumnSchema, a: ReadColumn, dialect: DialectName): boolean {
  // PostgreSQL has one binary type (bytea) for both.
  const type = d.type === 'blob' && dialect !== 'mysql' ? 'bytes' : d.type;
  if (type !== a.type || d.nullable !== a.nullable) return false;
  // PostgreSQL's bytea has no length to compare.
  if (d.type === 'string' || (d.type === 'bytes' && dialect === 'mysql')) return d.length === a.length;
  if (d.type === 'decimal') return d.precision === a.precision && d.scale === a.scale;
  return true;
}

/**
 * The differences between the declared schema and what a database has (introspect.ts): the
 * drift test expects none; the migration generator turns them into statements. Index and key
 * names are not compared (hand-written migrations named them their own way), their columns are.
 */
export function compareSchema(declared: TableSchema[], actual: Map<string, ReadTable>, dialect: DialectName): SchemaDiff {
  const out: SchemaDiff = { createTables: [], dropTables: [], tables: [] };
  const names = new Set(declared.map((t) => t.name));
  for (const t of declared) {
    const a = actual.get(t.name);
    if (!a) {
      out.createTables.push(t);
      continue;
    }
    const diff: TableDiff = { table: t.name, declared: t, addColumns: [], alterColumns: [], dropColumns: [], collation: [], addIndexes: [], dropIndexes: [], addForeignKeys: [], dropForeignKeys: [] };
    const have = new Map(a.columns.map((c) => [c.name, c]));
    for (const c of t.columns) {
      const ac = have.get(c.name);
      if (!ac) diff.addColumns.push(c);
      else {
        if (!sameColumn(c, ac, dialect)) diff.alterColumns.push({ declared: c, actual: ac });
        if ((c.type === 'string' || c.type === 'text') && ac.collation !== BINARY[dialect]) diff.collation.push(c.name);
      }
    }
    const declaredCols = new Set(t.columns.map((c) => c.name));
    diff.dropColumns = a.columns.filter((c) => !declaredCols.has(c.name)).map((c) => c.name);
    if (t.primaryKey.join() !== a.primaryKey.join()) diff.primaryKey = { declared: t.primaryKey, actual: a.primaryKey };
    const wanted = new Set(t.indexes.map(indexKey));
    const present = new Set(a.indexes.map(indexKey));
    diff.addIndexes = t.indexes.filter((i) => !present.has(indexKey(i)));
    diff.dropIndexes = a.indexes.filter((i) => !wanted.has(indexKey(i)) && !innodbForeignKeyIndex(i, a, t, dialect));
    const wantedFks = new Set(t.foreignKeys.map(fkKey));
    const presentFks = new Set(a.foreignKeys.map(fkKey));
    diff.addForeignKeys = t.foreignKeys.filter((f) => !presentFks.has(fkKey(f)));
    diff.dropForeignKeys = a.foreignKeys.filter((f) => !wantedFks.has(fkKey(f)));
    if (!!t.watched !== !!a.watched) diff.watch = !!t.watched;
    const changed = diff.addColumns.length || diff.alterColumns.length || diff.dropColumns.length || diff.collation.length || diff.primaryKey ||
      diff.addIndexes.length || diff.dropIndexes.length || diff.addForeignKeys.length || diff.dropForeignKeys.length || diff.watch !== undefined;
    if (changed) out.tables.push(diff);
  }
  out.dropTables = [...actual.keys()].filter((n) => !names.has(n)).sort();
  return out;
}

/**
 * InnoDB makes an index for a foreign key that no index leads with: not the declarations' (a
 * declared key or index that leads with the column serves it).
 */
function innodbForeignKeyIndex(i: IndexSchema, a: ReadTable, t: TableSchema, dialect: DialectName): boolean {
  if (dialect !== 'mysql' || i.unique || i.columns.length !== 1) return false;
  if (!a.foreignKeys.some((f) => f.column === i.columns[0] && (f.name === i.name || i.name === i.columns[0]))) return false;
  return [t.primaryKey, ...t.indexes.map((x) => x.columns)].some((cols) => cols[0] === i.columns[0] && cols.length > 1);
}

/** One line per difference, for people (the drift test's failure, the generator's summary). */
export function describeDiff(diff: SchemaDiff): string[] {
  const lines: string[] = [];
  for (const t of diff.createTables) lines.push(`missing table ${t.name}`);
  for (const t of diff.dropTables) lines.push(`undeclared table ${t}`);
  const col = (c: ColumnSchema | ReadColumn) => `${c.type}${c.length ? `(${c.length})` : ''}${c.precision ? `(${c.precision},${c.scale})` : ''}${c.nullable ? ' NULL' : ' NOT NULL'}`;
  for (const d of diff.tables) {
    for (const c of d.addColumns) lines.push(`${d.table}: missing column ${c.name} ${col(c)}`);
    for (const c of d.alterColumns) lines.push(`${d.table}.${c.declared.name}: declared ${col(c.declared)}, database has ${col(c.actual)}`);
    for (const c of d.dropColumns) lines.push(`${d.table}: undeclared column ${c}`);
    for (const c of d.collation) lines.push(`${d.table}.${c}: not the binary collation`);
    if (d.primaryKey) lines.push(`${d.table}: primary key (${d.primaryKey.declared}) declared, (${d.primaryKey.actual}) in the database`);
    for (const i of d.addIndexes) lines.push(`${d.table}: missing ${i.unique ? 'unique key' : 'index'} (${i.columns.join(', ')})`);
    for (const i of d.dropIndexes) lines.push(`${d.table}: undeclared ${i.unique ? 'unique key' : 'index'} ${i.name} (${i.columns.join(', ')})`);
    for (const f of d.addForeignKeys) lines.push(`${d.table}: missing foreign key ${f.column} -> ${f.table} on delete ${f.onDelete}`);
    for (const f of d.dropForeignKeys) lines.push(`${d.table}: undeclared foreign key ${f.name} ${f.column} -> ${f.table} on delete ${f.onDelete}`);
    if (d.watch !== undefined) lines.push(`${d.table}: ${d.watch ? 'missing' : 'undeclared'} change notification trigger`);
  }
  return lines;
}
