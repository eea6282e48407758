import type { DialectName } from '../dialect';
import type { SchemaDiff, TableDiff } from './compare';
import { mysqlChangeTriggers, pgTriggerName, shortName } from './names';
import type { ColumnSchema, ForeignKeySchema, IndexSchema, OnDelete, StorageType, TableSchema } from './schema';

/** Statements of a migration, per direction. */
export interface Statements {
  up: string[];
  down: string[];
}

const PG: Record<StorageType, (c: ColumnSchema) => string> = {
  uuid: () => 'uuid',
  string: (c) => `varchar(${c.length}) COLLATE "C"`,
  text: () => 'text COLLATE "C"',
  integer: () => 'integer',
  bigint: () => 'bigint',
  decimal: (c) => `numeric(${c.precision},${c.scale})`,
  boolean: () => 'boolean',
  date: () => 'date',
  datetime: () => 'timestamptz',
  json: () => 'jsonb',
  bytes: () => 'bytea',
  blob: () => 'bytea',
};
const MY: Record<StorageType, (c: ColumnSchema) => string> = {
  uuid: () => 'char(36)',
  string: (c) => `varchar(${c.length})`,
  text: () => 'longtext',
  integer: () => 'int',
  bigint: () => 'bigint',
  decimal: (c) => `decimal(${c.precision},${c.scale})`,
  boolean: () => 'tinyint(1)',
  date: () => 'date',
  datetime: () => 'datetime(6)',
  json: () => 'json',
  bytes: (c) => `varbinary(${c.length})`,
  blob: () => 'longblob',
};
/** What an existing row gets in a NOT NULL column added to its table (the engine writes every column of new rows); a time column, the time of the migration. */
const FILL: Partial<Record<StorageType, string>> = { string: `''`, text: `''`, integer: '0', bigint: '0', decimal: '0', boolean: 'false', json: `'{}'`, datetime: 'CURRENT_TIMESTAMP' };
/** A fresh UUID per row: only for a new `id` that becomes the primary key (see primaryKeyChange). */
const NEW_ID: Record<DialectName, string> = { postgres: 'gen_random_uuid()', mysql: 'UUID()' };
const ON_DELETE: Record<OnDelete, string> = { restrict: 'RESTRICT', cascade: 'CASCADE', setNull: 'SET NULL' };
const TAIL = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

export const indexName = (table: string, i: IndexSchema) => i.name ?? shortName(`${table}_${i.columns.join('_')}_${i.unique ? 'key' : 'idx'}`);
export const fkName = (table: string, f: ForeignKeySchema) => f.name ?? shortName(`${table}_${f.column}_fk`);

/** Renders the statements that take a database from what it has to what is declared, and back. */
export class Ddl {
  constructor(readonly dialect: DialectName) {}

  q(id: string): string {
    return this.dialect === 'postgres' ? `"${id}"` : `\`${id}\``;
  }

  private list(cols: string[]): string {
    return cols.map((c) => this.q(c)).join(', ');
  }

  columnType(c: ColumnSchema): string {
    return (this.dialect === 'postgres' ? PG : MY)[c.type](c);
  }

  column(c: ColumnSchema): string {
    return `${this.q(c.name)} ${this.columnType(c)} ${c.nullable ? 'NULL' : 'NOT NULL'}`;
  }

  createTable(t: TableSchema): string {
    const parts = [...t.columns.map((c) => this.column(c)), `PRIMARY KEY (${this.list(t.primaryKey)})`];
    if (this.dialect === 'mysql') parts.push(...t.indexes.map((i) => `${i.unique ? 'UNIQUE ' : ''}KEY ${this.q(indexName(t.name, i))} (${this.list(i.columns)})`));
    return `CREATE TABLE ${this.q(t.name)} (\n  ${parts.join(',\n  ')}\n)${this.dialect === 'mysql' ? ` ${TAIL}` : ''}`;
  }

  createIndex(table: string, i: IndexSchema): string {
    return `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${this.q(indexName(table, i))} ON ${this.q(table)} (${this.list(i.columns)})`;
  }

  dropIndex(table: string, i: IndexSchema): string {
    return this.dialect === 'postgres' ? `DROP INDEX ${this.q(indexName(table, i))}` : `DROP INDEX ${this.q(indexName(table, i))} ON ${this.q(table)}`;
  }

  addForeignKey(table: string, f: ForeignKeySchema): string {
    return `ALTER TABLE ${this.q(table)} ADD CONSTRAINT ${this.q(fkName(table, f))} FOREIGN KEY (${this.q(f.column)}) REFERENCES ${this.q(f.table)} (${this.q('id')}) ON DELETE ${ON_DELETE[f.onDelete]}`;
  }

  dropForeignKey(table: string, f: ForeignKeySchema): string {
    return `ALTER TABLE ${this.q(table)} DROP ${this.dialect === 'postgres' ? 'CONSTRAINT' : 'FOREIGN KEY'} ${this.q(fkName(table, f))}`;
  }

  /** A column added to a table that may have rows: added empty, filled, then made NOT NULL. */
  addColumn(table: string, c: ColumnSchema, newId = false): string[] {
    const t = this.q(table);
    if (c.nullable) return [`ALTER TABLE ${t} ADD COLUMN ${this.column(c)}`];
    const fill = newId ? NEW_ID[this.dialect] : FILL[c.type];
    if (!fill) throw new Error(`${table}.${c.name}: a NOT NULL ${c.type} column cannot be added to rows that exist without a value: declare it nullable, or write the data step by hand`);
    return [
      `ALTER TABLE ${t} ADD COLUMN ${this.column({ ...c, nullable: true })}`,
      `UPDATE ${t} SET ${this.q(c.name)} = ${c.type === 'boolean' && this.dialect === 'mysql' ? '0' : fill}`,
      this.alterColumn(table, c),
    ];
  }

  alterColumn(table: string, c: ColumnSchema): string {
    const t = this.q(table);
    if (this.dialect === 'mysql') return `ALTER TABLE ${t} MODIFY COLUMN ${this.column(c)}`;
    const col = this.q(c.name);
    return `ALTER TABLE ${t} ALTER COLUMN ${col} TYPE ${this.columnType(c)}, ALTER COLUMN ${col} ${c.nullable ? 'DROP' : 'SET'} NOT NULL`;
  }

  dropColumn(table: string, name: string): string {
    return `ALTER TABLE ${this.q(table)} DROP COLUMN ${this.q(name)}`;
  }

  /**
   * The one primary key change that is generated: a link table that becomes a model's own (a
   * through model). Its new `id` is filled with a fresh UUID per row and becomes the key; the old
   * key's columns stay, under the unique key the model declares for them. Anything else is
   * written by hand.
   */
  private primaryKeyChange(d: TableDiff): Statements {
    const { declared, actual } = d.primaryKey!;
    const keepsOld = d.declared.indexes.some((i) => i.unique && i.columns.join() === actual.join());
    if (declared.join() !== 'id' || !d.addColumns.some((c) => c.name === 'id') || !keepsOld) {
      throw new Error(`${d.table}: changing a primary key is not generated (but a link table becoming a model with a unique key on its old key's columns); write that migration by hand`);
    }
    const t = this.q(d.table);
    const to = (cols: string[]) =>
      this.dialect === 'postgres'
        ? [`ALTER TABLE ${t} DROP CONSTRAINT ${this.q(shortName(`${d.table}_pkey`))}`, `ALTER TABLE ${t} ADD CONSTRAINT ${this.q(shortName(`${d.table}_pkey`))} PRIMARY KEY (${this.list(cols)})`]
        : [`ALTER TABLE ${t} DROP PRIMARY KEY, ADD PRIMARY KEY (${this.list(cols)})`];
    return { up: to(declared), down: to(actual) };
  }

  /**
   * The triggers that tell other processes a watched table changed: on PostgreSQL one statement
   * trigger that notifies; on MySQL/MariaDB a row trigger per event that counts in
   * CHANGE_COUNTS_TABLE (see ChangePoller).
   */
  watch(table: string): string[] {
    if (this.dialect === 'postgres') {
      return [`CREATE TRIGGER ${this.q(pgTriggerName(table))} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${this.q(table)} FOR EACH STATEMENT EXECUTE FUNCTION "netkeel_notify_change"()`];
    }
    return mysqlChangeTriggers(table).map((tr) => tr.create);
  }

  unwatch(table: string): string[] {
    if (this.dialect === 'postgres') return [`DROP TRIGGER IF EXISTS ${this.q(pgTriggerName(table))} ON ${this.q(table)}`];
    return mysqlChangeTriggers(table).map((tr) => `DROP TRIGGER IF EXISTS ${this.q(tr.name)}`);
  }

  /**
   * The statements of a difference: new tables first (foreign keys once every table exists, so
   * tables may point at each other), then each table's changes; `down` undoes them in reverse.
   */
  render(diff: SchemaDiff): Statements {
    const up: string[] = [];
    const down: string[] = [];
    for (const t of diff.createTables) {
      up.push(this.createTable(t));
      if (this.dialect === 'postgres') up.push(...t.indexes.map((i) => this.createIndex(t.name, i)));
      if (t.watched) up.push(...this.watch(t.name));
    }
    for (const t of diff.createTables) up.push(...t.foreignKeys.map((f) => this.addForeignKey(t.name, f)));
    for (const t of [...diff.createTables].reverse()) for (const f of t.foreignKeys) down.push(this.dropForeignKey(t.name, f));
    for (const t of [...diff.createTables].reverse()) down.push(`DROP TABLE ${this.q(t.name)}`);
    for (const d of diff.tables) {
      const pk = d.primaryKey ? this.primaryKeyChange(d) : undefined;
      for (const c of d.addColumns) {
        up.push(...this.addColumn(d.table, c, !!pk && c.name === 'id'));
        down.unshift(this.dropColumn(d.table, c.name));
      }
      for (const { declared, actual } of d.alterColumns) {
        up.push(this.alterColumn(d.table, declared));
        down.unshift(this.alterColumn(d.table, actual));
      }
      for (const i of d.dropIndexes) {
        up.push(this.dropIndex(d.table, i));
        down.unshift(this.createIndex(d.table, i));
      }
      for (const i of d.addIndexes) {
        // InnoDB keeps an index for every foreign key column already (PostgreSQL does not).
        if (this.dialect === 'mysql' && !i.unique && i.columns.length === 1 && d.declared.foreignKeys.some((f) => f.column === i.columns[0])) continue;
        up.push(this.createIndex(d.table, i));
        down.unshift(this.dropIndex(d.table, i));
      }
      // After the new keys: InnoDB drops a primary key only while another index serves its foreign keys.
      if (pk) {
        up.push(...pk.up);
        down.unshift(...pk.down);
      }
      for (const f of d.dropForeignKeys) {
        up.push(this.dropForeignKey(d.table, f));
        down.unshift(this.addForeignKey(d.table, f));
      }
      for (const f of d.addForeignKeys) {
        up.push(this.addForeignKey(d.table, f));
        down.unshift(this.dropForeignKey(d.table, f));
      }
      if (d.watch !== undefined) {
        up.push(...(d.watch ? this.watch(d.table) : this.unwatch(d.table)));
        down.unshift(...(d.watch ? this.unwatch(d.table) : this.watch(d.table)));
      }
      if (d.dropColumns.length) throw new Error(`${d.table}: columns ${d.dropColumns.join(', ')} are no longer declared; dropping data is not generated: write that migration by hand`);
      if (d.collation.length) throw new Error(`${d.table}: columns ${d.collation.join(', ')} lack the binary collation; write that migration by hand`);
    }
    if (diff.dropTables.length) throw new Error(`tables ${diff.dropTables.join(', ')} are no longer declared; dropping data is not generated: write that migration by hand`);
    return { up, down };
  }
}
