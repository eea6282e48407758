/**
 * The storage the engine declares: tables, columns, keys, indexes and foreign keys, in terms both
 * dialects render (DDL) and read back (introspection) the same way. Resource definitions derive
 * their tables from their fields (core/resource/storage.ts); tables that are not a model's
 * (sessions, lookup keys, histories) are declared with `defineTable`.
 */
export type StorageType = 'uuid' | 'string' | 'text' | 'integer' | 'bigint' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'json' | 'bytes' | 'blob';

export interface ColumnSchema {
  name: string;
  type: StorageType;
  /** string: varchar length; bytes: varbinary length. */
  length?: number;
  /** decimal: total digits and digits after the point. */
  precision?: number;
  scale?: number;
  nullable: boolean;
}

export interface IndexSchema {
  columns: string[];
  unique: boolean;
  /** Set when read from a database (or declared); generated names otherwise. */
  name?: string;
}

export type OnDelete = 'restrict' | 'cascade' | 'setNull';

export interface ForeignKeySchema {
  column: string;
  table: string;
  onDelete: OnDelete;
  name?: string;
}

export interface TableSchema {
  name: string;
  columns: ColumnSchema[];
  primaryKey: string[];
  indexes: IndexSchema[];
  foreignKeys: ForeignKeySchema[];
  /**
   * Other processes must hear of every change (caches of tokens, permissions, custom fields): on
   * PostgreSQL a statement trigger notifies `netkeel_changes` with the table's name; on
   * MySQL/MariaDB row triggers count the changes in `netkeel_change_counts` (ChangePoller).
   */
  watched?: boolean;
}

/** A column declaration without its name (the key it is declared under gives it). */
export type ColumnSpec = Omit<ColumnSchema, 'name'>;

type Opts = { nullable?: boolean };

/** Column declarations for `columns:` maps of definitions and tables. */
export const column = {
  uuid: (o: Opts = {}): ColumnSpec => ({ type: 'uuid', nullable: !!o.nullable }),
  string: (length: number, o: Opts = {}): ColumnSpec => ({ type: 'string', length, nullable: !!o.nullable }),
  text: (o: Opts = {}): ColumnSpec => ({ type: 'text', nullable: !!o.nullable }),
  integer: (o: Opts = {}): ColumnSpec => ({ type: 'integer', nullable: !!o.nullable }),
  bigint: (o: Opts = {}): ColumnSpec => ({ type: 'bigint', nullable: !!o.nullable }),
  decimal: (precision: number, scale: number, o: Opts = {}): ColumnSpec => ({ type: 'decimal', precision, scale, nullable: !!o.nullable }),
  boolean: (o: Opts = {}): ColumnSpec => ({ type: 'boolean', nullable: !!o.nullable }),
  date: (o: Opts = {}): ColumnSpec => ({ type: 'date', nullable: !!o.nullable }),
  datetime: (o: Opts = {}): ColumnSpec => ({ type: 'datetime', nullable: !!o.nullable }),
  json: (o: Opts = {}): ColumnSpec => ({ type: 'json', nullable: !!o.nullable }),
  bytes: (length: number, o: Opts = {}): ColumnSpec => ({ type: 'bytes', length, nullable: !!o.nullable }),
  /** Binary of any size (an uploaded file): bytea, LONGBLOB. */
  blob: (o: Opts = {}): ColumnSpec => ({ type: 'blob', nullable: !!o.nullable }),
};

export interface TableInput {
  name: string;
  columns: Record<string, ColumnSpec>;
  primaryKey: string[];
  /** Column lists; `unique` for unique keys. */
  indexes?: (string[] | { columns: string[]; unique?: boolean })[];
  /** Column -> [target table, on delete]. */
  foreignKeys?: Record<string, [table: string, onDelete: OnDelete]>;
  watched?: boolean;
}

/** A table that is not a model's own (a model's tables follow from its definition). */
export function defineTable(t: TableInput): TableSchema {
  return {
    name: t.name,
    columns: Object.entries(t.columns).map(([name, c]) => ({ name, ...c })),
    primaryKey: t.primaryKey,
    indexes: (t.indexes ?? []).map((i) => (Array.isArray(i) ? { columns: i, unique: false } : { columns: i.columns, unique: !!i.unique })),
    foreignKeys: Object.entries(t.foreignKeys ?? {}).map(([c, [table, onDelete]]) => ({ column: c, table, onDelete })),
    watched: t.watched,
  };
}
