import { Column, ColumnOptions, getMetadataArgsStorage } from 'typeorm';
import type { DialectName } from './dialect';

interface Registered {
  target: Function;
  propertyName: string;
  options: Record<DialectName, ColumnOptions>;
}

const registered: Registered[] = [];

/**
 * A column whose storage type differs by database, e.g. `bytea` on PostgreSQL and
 * `varbinary(16)` on MySQL. TypeORM validates column types per driver when a DataSource builds
 * its metadata, so one static type cannot serve both; `openDatabase` points each such column at
 * its dialect's options (`applyDialectColumns`) just before `initialize()`.
 */
export function DialectColumn(options: Record<DialectName, ColumnOptions>): PropertyDecorator {
  return (prototype, propertyName) => {
    Column({ ...options.postgres })(prototype, propertyName);
    registered.push({ target: prototype.constructor, propertyName: String(propertyName), options });
  };
}

/** Fixed-length bytes (IP addresses): `bytea` on PostgreSQL, `varbinary(length)` on MySQL. */
export const BytesColumn = (length: number, options: ColumnOptions = {}): PropertyDecorator =>
  DialectColumn({ postgres: { ...options, type: 'bytea' }, mysql: { ...options, type: 'varbinary', length } });

/**
 * Sets the options of every DialectColumn for one dialect. TypeORM keeps column declarations
 * in one process-wide store, read when a DataSource initializes: call this right before.
 */
export function applyDialectColumns(dialect: DialectName): void {
  const columns = getMetadataArgsStorage().columns;
  for (const r of registered) {
    for (const c of columns) {
      if (c.target === r.target && c.propertyName === r.propertyName) (c as { options: ColumnOptions }).options = { ...r.options[dialect] };
    }
  }
}
